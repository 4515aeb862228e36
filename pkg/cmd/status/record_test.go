package status

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// TestRecordReadsBackAsThePods: status --wait --record on the captured seed Job (finished,
// indexes failed with exit codes 42 and 1) writes its terminal pods; status -f with the Job and
// --pods-file RECORD then makes the same report as with the pods kubectl saved, and a watch
// run again on the same record adds nothing.
func TestRecordReadsBackAsThePods(t *testing.T) {
	job, pods := testutil.Fixture(t, "seed")
	job.Namespace = "ns" // the test factory's
	objs := []runtime.Object{job.DeepCopy()}
	terminal := 0
	for i := range pods {
		pods[i].Namespace = "ns"
		objs = append(objs, pods[i].DeepCopy())
		if p := pods[i].Status.Phase; p == corev1.PodFailed || p == corev1.PodSucceeded {
			terminal++
		}
	}
	dir := t.TempDir()
	record := filepath.Join(dir, "seed.record")
	for round, want := range []string{"(0 were in it already)", "recorded 0 terminal pods"} {
		r := run(t, fake.NewClientset(objs...), "", job.Name, "--wait", "--record", record)
		if r.code != exitcode.Findings || !strings.Contains(r.errOut, want) {
			t.Fatalf("round %d: exit %d, stderr lacks %q:\n%s", round, r.code, want, r.errOut)
		}
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(b), "\n"); lines != terminal+1 {
		t.Errorf("record has %d lines, want the header and %d terminal pods, each once", lines, terminal)
	}
	jobFile, podsFile := filepath.Join(dir, "job.json"), filepath.Join(dir, "pods.json")
	jb, _ := json.Marshal(job)
	pb, _ := json.Marshal(corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: pods})
	if err := os.WriteFile(jobFile, jb, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(podsFile, pb, 0o600); err != nil {
		t.Fatal(err)
	}
	fromPods := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "-o", "json")
	fromRecord := run(t, nil, "", "-f", jobFile, "--pods-file", record, "-o", "json")
	if fromRecord.code != fromPods.code || fromRecord.out != fromPods.out {
		t.Errorf("the record's report differs from the pods' (exit %d vs %d):\n%s\n---\n%s%s", fromRecord.code, fromPods.code, fromRecord.out, fromPods.out, fromRecord.errOut)
	}
	if !strings.Contains(fromRecord.out, `"lastExitCode": 42`) {
		t.Errorf("the exit code 42 is not in the report (exit %d):\n%s%s", fromRecord.code, fromRecord.out, fromRecord.errOut)
	}

	// A record whose writer was killed in a write: its torn last line is skipped, with a note,
	// and the pods before it are read.
	torn := filepath.Join(dir, "torn.record")
	if err := os.WriteFile(torn, append(b, `{"apiVersion":"v1","kind":"Pod","metadata":{"na`...), 0o600); err != nil {
		t.Fatal(err)
	}
	fromTorn := run(t, nil, "", "-f", jobFile, "--pods-file", torn, "-o", "json")
	if fromTorn.code != fromPods.code || !strings.Contains(fromTorn.out, "ends in a torn line (47 bytes") || !strings.Contains(fromTorn.out, `"lastExitCode": 42`) {
		t.Errorf("a torn record: exit %d (want %d), no note of the torn line or no exit code 42:\n%s%s", fromTorn.code, fromPods.code, fromTorn.out, fromTorn.errOut)
	}

	// A record of another Job (made again under the same name) is refused, for reading and
	// for appending.
	again := job.DeepCopy()
	again.UID = "another-uid"
	jb, _ = json.Marshal(again)
	if err := os.WriteFile(jobFile, jb, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, nil, "", "-f", jobFile, "--pods-file", record); r.code != exitcode.Usage || !strings.Contains(r.errOut, "is the record of job") {
		t.Errorf("reading another Job's record: exit %d\n%s", r.code, r.errOut)
	}
	if r := run(t, fake.NewClientset(again), "", job.Name, "--wait", "--record", record); r.code != exitcode.Usage || !strings.Contains(r.errOut, "not of this job") {
		t.Errorf("appending to another Job's record: exit %d\n%s", r.code, r.errOut)
	}
}

func TestRecordUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"seed", "--record", "r"}, "--record needs --watch or --wait"},
	} {
		if r := run(t, fake.NewClientset(), "", c.args...); r.code != exitcode.Usage || !strings.Contains(r.errOut, c.want) {
			t.Errorf("%q: exit %d\n%s", c.args, r.code, r.errOut)
		}
	}
}

// TestCloseRecordSaysAWriteThatFailedDuringARead: a write to --record that failed while a read
// saw the pods (gather.Live's Seen, as the lineage report's last read does) is not lost when the
// watch itself ended well: closing the record says it, with its exit code.
func TestCloseRecordSaysAWriteThatFailedDuringARead(t *testing.T) {
	job, _ := testutil.Fixture(t, "seed")
	var errOut strings.Builder
	o := &Options{Record: filepath.Join(t.TempDir(), "seed.record")}
	o.ErrOut = &errOut
	w, err := podrecord.Open(o.Record, job, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	o.rec = w
	o.recErr = exitcode.Wrap(exitcode.Usage, errors.New("--record: cannot write the record: no space left on device"))
	err = o.closeRecord(nil)
	if err == nil || !strings.Contains(err.Error(), "no space left") || exitcode.Code(err) != exitcode.Usage {
		t.Fatalf("closeRecord(nil) = %v (exit %d), want the write's error, exit %d", err, exitcode.Code(err), exitcode.Usage)
	}
}
