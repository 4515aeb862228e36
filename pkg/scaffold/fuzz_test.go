package scaffold

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// FuzzParseBase: any --from-job input either fails with an error or gives a Job that Build
// turns into objects or refuses with an error; nothing panics.
func FuzzParseBase(f *testing.F) {
	ins, _ := filepath.Glob("testdata/in/*.yaml")
	for _, in := range ins {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  podFailurePolicy:\n    rules: [{action: FailIndex}]\n  template:\n    spec:\n      containers: [{name: worker, env: [{name: JOB_COMPLETION_INDEX, valueFrom: {}}]}]\n"))
	f.Add([]byte("apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a}, {name: b}]}\n"))
	f.Add([]byte("apiVersion: batch/v1\nkind: CronJob\nspec: {jobTemplate: {metadata: {annotations: {indexed.kubectl.io/invalid-input-exit-code: '7'}}}}\n"))
	m, err := shards.Read("testdata/in/six.yaml", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		base, err := ParseBase("fuzz", data)
		if err != nil {
			return
		}
		objs, err := Build(Options{Manifest: m, JobName: "j", Namespace: "ns", Base: base, Image: "img"})
		if err != nil {
			return
		}
		if objs.Job.Spec.Completions == nil || *objs.Job.Spec.Completions != 6 || objs.Job.Spec.BackoffLimit != nil {
			t.Fatalf("built a Job that breaks the policy: %+v", objs.Job.Spec)
		}
	})
}

// FuzzParseBudget: ParseBudget never panics and what it accepts prints back to itself.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"none", "3", "10%", "", "-1", "101%", "2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBudget(s)
		if err != nil {
			return
		}
		again, err := ParseBudget(b.String())
		if err != nil || again != b {
			t.Fatalf("%q -> %v -> %v %v", s, b, again, err)
		}
		if r := b.Resolve(100); r != nil && (*r < 0 || *r > 100 && b.Percent) {
			t.Fatalf("%v resolves to %d of 100", b, *r)
		}
	})
}
