package status

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// -f with the Workload beside the Job: the Queue block and queue JSON come from the file, and
// Next says Kueue acts; without the Workload in the file, one line says where to get it.
func TestOfflineKueueWorkload(t *testing.T) {
	j := job("b", 2)
	j.UID = "job-b"
	j.Labels = map[string]string{kueue.QueueLabel: "lq"}
	j.Spec.Suspend = ptr.To(true)
	jobJSON, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	wl := `{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"job-b-1","namespace":"` + j.Namespace + `","labels":{"kueue.x-k8s.io/job-uid":"job-b"}},
"spec":{"queueName":"lq","podSets":[{"name":"main","count":2}]},
"status":{"conditions":[{"type":"QuotaReserved","status":"False","reason":"Pending","message":"couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 2 more needed","lastTransitionTime":"2026-03-01T12:00:00Z"}]}}`
	dir := t.TempDir()
	both := filepath.Join(dir, "both.json")
	if err := os.WriteFile(both, []byte(`{"apiVersion":"v1","kind":"List","items":[`+string(jobJSON)+`,`+wl+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, nil, "", "-f", both, "-o", "json")
	var rep indexstatus.IndexedJobStatus
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || r.code != 0 {
		t.Fatalf("%v exit %d\n%s%s", err, r.code, r.out, r.errOut)
	}
	if q := rep.Queue; q == nil || q.Workload != "job-b-1" || q.State != "Pending" || q.LocalQueue != "lq" {
		t.Fatalf("queue %+v", rep.Queue)
	}
	if len(rep.Next) == 0 || !strings.Contains(rep.Next[0], "Kueue admits the Workload") || strings.Contains(rep.Next[0], "suspend to false") {
		t.Errorf("next %q", rep.Next)
	}
	jobOnly := filepath.Join(dir, "job.json")
	if err := os.WriteFile(jobOnly, jobJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, nil, "", "-f", jobOnly)
	if r.code != 0 || strings.Count(r.out, "kubectl get workloads.kueue.x-k8s.io") < 1 || !strings.Contains(r.out, "Queue:") {
		t.Errorf("exit %d\n%s", r.code, r.out)
	}
}
