package status

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/htmlreport"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

var htmlData = regexp.MustCompile(`(?s)<script id="report-data" type="application/json">(.*?)</script>`)

// drawnStates is the state name of every cell of an -o html page, as its script draws them.
func drawnStates(t *testing.T, page string) []string {
	t.Helper()
	m := htmlData.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no report data in the page:\n%s", page)
	}
	var d struct {
		Cells  int      `json:"cells"`
		States []string `json:"states"`
		Runs   []int    `json:"runs"`
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k := 0; k+1 < len(d.Runs); k += 2 {
		for range d.Runs[k] {
			name := ""
			if d.Runs[k+1] >= 0 {
				name = d.States[d.Runs[k+1]]
			}
			out = append(out, name)
		}
	}
	for len(out) < d.Cells {
		out = append(out, "")
	}
	return out
}

// TestLineageHTML: status --lineage -o html of seed and its retry (offline, the same objects
// as TestLineageLiveAndOffline) draws each shard in the state -o json gives it, shard 4's
// success in seed-r1 apart from the root's; it was a usage error before.
func TestLineageHTML(t *testing.T) {
	root, r1, pods := seedLineage()
	jobs := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, o := range append([]runtime.Object{root, r1}, podObjects(pods)...) {
		jobs.Items = append(jobs.Items, runtime.RawExtension{Object: o})
	}
	b, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "all.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, nil, "", "--lineage", "-f", path, "-o", "json")
	var rep lineage.Report
	if r.code != 0 || json.Unmarshal([]byte(r.out), &rep) != nil {
		t.Fatalf("-o json: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	page := run(t, nil, "", "--lineage", "-f", path, "-o", "html")
	if page.code != 0 || !strings.HasPrefix(page.out, "<!DOCTYPE html>") {
		t.Fatalf("-o html: exit %d\n%s%s", page.code, page.out, page.errOut)
	}
	drawn := drawnStates(t, page.out)
	if len(drawn) != len(rep.ShardStatuses) {
		t.Fatalf("%d cells, %d shards", len(drawn), len(rep.ShardStatuses))
	}
	retried := 0
	for i := range rep.ShardStatuses {
		s := &rep.ShardStatuses[i]
		if want := htmlreport.LineageState(s); drawn[s.Index] != want {
			t.Errorf("shard %d drawn %q, want %q (-o json: %s, attempt %d)", s.Index, drawn[s.Index], want, s.State, s.Attempt)
		}
		if drawn[s.Index] == htmlreport.LineageSucceededInRetry {
			retried++
		}
	}
	if retried != 1 || drawn[4] != htmlreport.LineageSucceededInRetry || !strings.Contains(page.out, "succeeded in a retry: 1") || !strings.Contains(page.out, "Lineage of Job ") {
		t.Errorf("shard 4 succeeded in seed-r1: drawn %v\n%s", drawn, page.out)
	}
}

func podObjects(pods []*corev1.Pod) []runtime.Object {
	out := make([]runtime.Object, 0, len(pods))
	for _, p := range pods {
		out = append(out, p)
	}
	return out
}
