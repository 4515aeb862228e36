package harness

import _ "embed"

//go:embed stages.yaml
var stagesYAML []byte

// Stages returns the kwok Stage documents the harness runs kwok with (stages.yaml).
func Stages() []byte {
	return append([]byte(nil), stagesYAML...)
}
