package create

import (
	"os"
	"path/filepath"
	"testing"
)

const sixShards = `apiVersion: indexed.kubectl.io/v1alpha1
kind: ShardManifest
metadata: {name: eval-six}
revision: "1"
shards:
- {id: s0, cases: [c0]}
- {id: s1, cases: [c1]}
- {id: s2, cases: [c2]}
- {id: s3, cases: [c3]}
- {id: s4, cases: [c4]}
- {id: s5, cases: [c5]}
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
