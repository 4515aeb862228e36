package scaffold

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// --from-job takes what create prints (ConfigMaps and one Job) and says so; other files of
// several objects are refused as before.
func TestReadBaseFileTakesCreatesList(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shards\ndata:\n  a: b\n"
	job := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: eval\nspec:\n  template:\n    spec:\n      containers:\n      - name: worker\n        image: w:1\n"
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: worker\n    image: w:1\n"
	dir := t.TempDir()
	for _, c := range []struct {
		name, content string
		ok            bool
	}{
		{"list.yaml", cm + "---\n" + job, true},
		{"job.yaml", job, true},
		{"two-jobs.yaml", job + "---\n" + job, false},
		{"configmap-and-pod.yaml", cm + "---\n" + pod, false},
		{"configmaps-only.yaml", cm + "---\n" + cm, false},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ReadBaseFile(p, nil)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok %v", c.name, err, c.ok)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), "holds 2 objects") {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		multi := strings.Contains(c.content, "ConfigMap")
		if b.Job.Name != "eval" || (len(b.ConfigMaps) == 1) != multi || (b.Note != "") != multi {
			t.Errorf("%s: job %q, %d ConfigMaps, note %q", c.name, b.Job.Name, len(b.ConfigMaps), b.Note)
		}
	}
}

// ReadBase is the Job of ReadBaseFile.
func ReadBase(path string, stdin io.Reader) (*batchv1.Job, error) {
	b, err := ReadBaseFile(path, stdin)
	if err != nil {
		return nil, err
	}
	return b.Job, nil
}

// ParseBase is ReadBase on data already read (for the fuzz test); name is used in messages.
func ParseBase(name string, data []byte) (*batchv1.Job, error) {
	docs := source.Parse(name, data)
	if len(docs) > 1 { // ReadBaseFile's List path; baseFromDocs takes one object
		return nil, fmt.Errorf("%s holds %d objects", name, len(docs))
	}
	job, _, err := baseFromDocs(name, docs)
	return job, err
}
