//go:build race

package lint

// raceEnabled: the race detector makes the 50 MB test take minutes; make lint-bigfile runs it
// without.
const raceEnabled = true
