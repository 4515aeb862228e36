package source

// librariesOnly turns the fast path off for the whole process: set by a build with the tag
// yamllibs (libraries_only.go), the yardstick of make bench-lint-reader.
var librariesOnly bool
