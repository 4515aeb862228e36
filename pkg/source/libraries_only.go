//go:build yamllibs

package source

// A build with the tag yamllibs reads every document with sigs.k8s.io/yaml and yaml.v3 only:
// the best kept libraries, against which make bench-lint-reader times the fast path on the
// whole lint command (docs/benchmarks.md).
func init() { librariesOnly = true }
