package jobdiff

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// maxPlanLines is "fits on a screen" for the plan: at most this many lines at 80 columns.
const maxPlanLines = 20

// TestPlanFitsOnAScreen: the plan of every captured fixture against each example manifest
// (the common cases: the fixtures are the Job states a user meets, the examples the Jobs they
// would compare with) is at most maxPlanLines lines, and its prose fits 80 columns (only
// commands, which must stay whole to be copied, may be longer).
func TestPlanFitsOnAScreen(t *testing.T) {
	examples, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples (%v)", err)
	}
	var desired []*batchv1.Job
	for _, e := range examples {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		j := &batchv1.Job{}
		if err := yaml.Unmarshal(b, j); err != nil || j.Kind != "Job" {
			continue
		}
		desired = append(desired, j)
	}
	longest, n := 0, 0
	for _, f := range loadFixtures(t) {
		for i, d := range append(desired, f.manifest) {
			r, err := Diff(f.live, d, Options{Now: testNow, DesiredSource: "job.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteText(&buf, r, testNow); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			plan := ""
			if k := strings.Index(text, "\nPlan:\n"); k >= 0 {
				plan = text[k+1:]
			}
			lines := strings.Split(strings.TrimRight(plan, "\n"), "\n")
			n++
			longest = max(longest, len(lines))
			if len(lines) > maxPlanLines {
				t.Errorf("%s vs desired %d: the plan has %d lines:\n%s", f.name, i, len(lines), plan)
			}
			for _, l := range lines {
				if utf8.RuneCountInString(l) > Width && !strings.HasPrefix(strings.TrimSpace(l), "kubectl ") {
					t.Errorf("%s vs desired %d: line wider than %d columns: %q", f.name, i, Width, l)
				}
			}
			// The differences fit too: values (cut at maxValueWidth) go one a line when both do
			// not fit; only a difference's path, kept whole, may be longer.
			for _, l := range strings.Split(text, "\n") {
				path := strings.HasPrefix(l, "  ~ ") || strings.HasPrefix(l, "  + ") || strings.HasPrefix(l, "  - ")
				if utf8.RuneCountInString(l) > Width && !path && !strings.HasPrefix(strings.TrimSpace(l), "kubectl ") {
					t.Errorf("%s vs desired %d: line wider than %d columns: %q", f.name, i, Width, l)
				}
			}
		}
	}
	t.Logf("%d plans, the longest %d lines", n, longest)
}
