package status

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// TestRecordGivenWithF: the record a --wait --record step kept is one of -f's files, next to the
// Job: the report is the one of --pods-file RECORD, for -o json and -o html, and the misuses
// (a record alone, pods given twice, another Job's record) are usage errors (exit 2).
func TestRecordGivenWithF(t *testing.T) {
	j, pods := seed()
	record := filepath.Join(t.TempDir(), "seed.record")
	if r := run(t, clientFor(j, pods), "", j.Name, "--wait", "--record", record); r.code != exitcode.Findings {
		t.Fatalf("--wait --record: exit %d\n%s", r.code, r.errOut)
	}
	jobFile, podsFile := writeObjects(t, j, pods)
	viaPods := run(t, nil, "", "-f", jobFile, "--pods-file", record, "-o", "json")
	viaF := run(t, nil, "", "-f", jobFile, "-f", record, "-o", "json")
	if viaF.code != 0 || viaF.out != viaPods.out || !strings.Contains(viaF.out, `"lastExitCode": 42`) {
		t.Errorf("-f RECORD: exit %d, differs from --pods-file RECORD or lacks exit 42:\n%s\n---\n%s%s", viaF.code, viaF.out, viaPods.out, viaF.errOut)
	}
	// The record first, or in a comma list, as kubectl's -f takes them.
	if r := run(t, nil, "", "-f", record+","+jobFile, "-o", "json"); r.out != viaPods.out {
		t.Errorf("-f RECORD,JOB: exit %d\n%s", r.code, r.errOut)
	}
	// The record on standard input.
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if r := run(t, nil, string(b), "-f", jobFile, "-f", "-", "-o", "json"); r.out != viaPods.out {
		t.Errorf("-f JOB -f - (the record on stdin): exit %d\n%s", r.code, r.errOut)
	}
	// The page of -o html explains the index too.
	if r := run(t, nil, "", "-f", jobFile, "-f", record, "-o", "html"); r.code != 0 || !strings.Contains(r.out, "42") || !strings.HasPrefix(strings.TrimSpace(r.out), "<!") {
		t.Errorf("-o html: exit %d\n%.300s%s", r.code, r.out, r.errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", record}, "is the record of the terminal pods of job ns/seed (uid " + string(j.UID) + "), and no Job is given: give the Job with it, e.g. kubectl get job seed -n ns -o json > job.json, then -f job.json -f " + record},
		{[]string{"-f", jobFile, "-f", record, "--pods-file", podsFile}, "give the Job's pods once"},
		{[]string{"-f", jobFile, "-f", record, "-f", record}, "are both records of pods"},
	} {
		if r := run(t, nil, "", c.args...); r.code != exitcode.Usage || !strings.Contains(r.errOut, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s", c.args, r.code, c.want, r.errOut)
		}
	}
	other := j.DeepCopy()
	other.UID = "another-uid"
	otherFile, _ := writeObjects(t, other, nil)
	if r := run(t, nil, "", "-f", otherFile, "-f", record); r.code != exitcode.Usage || !strings.Contains(r.errOut, "is the record of job ns/seed (uid "+string(j.UID)+"), not of job \"seed\" (uid another-uid)") {
		t.Errorf("another Job's record: exit %d\n%s", r.code, r.errOut)
	}
}

// lineageObjects is the seed lineage (seedLineage) with the retry's pods given UIDs of their
// own (pod() names UIDs by index and attempt only).
func lineageObjects() (root, r1 runtime.Object, pods []runtime.Object) {
	rj, rr1, ps := seedLineage()
	for _, p := range ps {
		if p.Labels["batch.kubernetes.io/job-name"] == rr1.Name {
			p.UID = types.UID("r1-" + string(p.UID))
		}
		pods = append(pods, p)
	}
	return rj, rr1, pods
}

// TestLineageRecord: status --lineage --wait --record keeps the terminal pods of the root and
// of its retry in one file, each once (a second run adds none); status --lineage -f JOBS -f
// RECORD (or --pods-file RECORD) then explains the shards as with the pods, where the Jobs
// alone cannot say why shard 2 failed; one Job of the lineage reads its own pods from it; the
// record of another run, or of one Job where a lineage's is asked to grow, is refused.
func TestLineageRecord(t *testing.T) {
	seedObj, r1, pods := lineageObjects()
	objs := append([]runtime.Object{r1}, pods...)
	seedJob := seedObj.(*batchv1.Job)
	record := filepath.Join(t.TempDir(), "lineage.record")
	for round, want := range []string{"recorded 9 terminal pods", "recorded 0 terminal pods"} {
		r := run(t, clientFor(seedJob, nil, objs...), "", "seed-r1", "--lineage", "--wait", "--record", record)
		if r.code != exitcode.Findings || !strings.Contains(r.errOut, want) {
			t.Fatalf("round %d: exit %d, want 1 and %q:\n%s%s", round, r.code, want, r.out, r.errOut)
		}
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"apiVersion":"indexed.kubectl.io/v1alpha1","kind":"PodRecord","job":{"name":"seed","namespace":"ns","uid":"`+string(seedJob.UID)+`"},"lineage":true`) {
		t.Errorf("header: %.200s", b)
	}

	jobs := writeList(t, seedJob, r1)
	const want = "5 of 6 shards succeeded; shard 2 failed as invalid input (exit 42) in seed and seed-r1"
	verdict := func(args ...string) (string, result) {
		t.Helper()
		r := run(t, nil, "", append([]string{"--lineage", "-o", "json"}, args...)...)
		var rep lineage.Report
		if err := json.Unmarshal([]byte(r.out), &rep); err != nil && r.code == 0 {
			t.Fatalf("%q: exit %d: %v\n%s", args, r.code, err, r.errOut)
		}
		return rep.Verdict, r
	}
	if v, _ := verdict("-f", jobs); v == want {
		t.Fatalf("the Jobs alone say %q: the test cannot tell the record's part", v)
	}
	for _, args := range [][]string{{"-f", jobs, "-f", record}, {"-f", jobs, "--pods-file", record}} {
		if v, r := verdict(args...); v != want || r.code != 0 {
			t.Errorf("%q: exit %d, verdict %q, want %q\n%s", args, r.code, v, want, r.errOut)
		}
	}
	// One Job of the lineage, with the lineage's record: its own pods only.
	r1File := writeList(t, r1)
	if r := run(t, nil, "", "-f", r1File, "-f", record, "-o", "json"); r.code != 0 || !strings.Contains(r.out, `"lastExitCode": 42`) || strings.Contains(r.out, "another Job") {
		t.Errorf("seed-r1 -f RECORD: exit %d\n%s%s", r.code, r.out, r.errOut)
	}

	// Another run of the same name: its Jobs do not take this record.
	again := seedJob.DeepCopy()
	again.UID = "uid-of-another-seed"
	if _, r := verdict("-f", writeList(t, again), "-f", record); r.code != exitcode.Usage || !strings.Contains(r.errOut, "not of the lineage of job \"seed\" (uid uid-of-another-seed)") {
		t.Errorf("another run: exit %d\n%s", r.code, r.errOut)
	}
	// A one-Job record is not grown into a lineage's, nor the other way round.
	one := filepath.Join(t.TempDir(), "one.record")
	if r := run(t, clientFor(seedJob, nil, objs...), "", "seed", "--wait", "--record", one); r.code != exitcode.Findings {
		t.Fatalf("one Job: exit %d\n%s", r.code, r.errOut)
	}
	if r := run(t, clientFor(seedJob, nil, objs...), "", "seed", "--lineage", "--wait", "--record", one); r.code != exitcode.Usage || !strings.Contains(r.errOut, "not of the lineage of job ns/seed") {
		t.Errorf("lineage onto a one-Job record: exit %d\n%s", r.code, r.errOut)
	}
	if r := run(t, clientFor(seedJob, nil, objs...), "", "seed", "--wait", "--record", record); r.code != exitcode.Usage || !strings.Contains(r.errOut, "is the record of the lineage of job ns/seed") {
		t.Errorf("one Job onto a lineage record: exit %d\n%s", r.code, r.errOut)
	}
	// The one-Job record of the root is read by the lineage too (the root's pods).
	if v, r := verdict("-f", jobs, "-f", one); r.code != 0 || !strings.Contains(v, "exit 42") {
		t.Errorf("lineage -f ONE_JOB_RECORD: exit %d %q\n%s", r.code, v, r.errOut)
	}
}

// TestLineageRecordWatchesThePods: status --lineage --wait --record polls the Jobs of the
// lineage every 2 s, but keeps a pod that failed and was deleted (the pod GC) between two polls:
// the pods are watched. The clock does not move until the pod is recorded, so no poll reads it.
func TestLineageRecordWatchesThePods(t *testing.T) {
	j := job("lw", 2)
	client := clientFor(j, nil)
	var mu sync.Mutex
	watching := 0
	client.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(a.GetResource(), a.GetNamespace())
		mu.Lock()
		watching++
		mu.Unlock()
		return true, w, err
	})
	clk := testingclock.NewFakeClock(t0.Add(time.Minute))
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.NewClient, o.Clock = clientIs(client), clk
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	record := filepath.Join(t.TempDir(), "lw.record")
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- io.Run(NewCmdStatusWithOptions(f, o), "lw", "--lineage", "--wait", "--record", record)
	}()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return watching > 0 })

	ctx := context.Background()
	gone := pod(j, 1, 0, ptr.To[int32](7))
	if _, err := client.CoreV1().Pods("ns").Create(ctx, gone, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Pods("ns").Delete(ctx, gone.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { b, _ := os.ReadFile(record); return strings.Count(string(b), "\n") == 2 })

	j2 := j.DeepCopy()
	j2.Status.FailedIndexes, j2.Status.Active = ptr.To("1"), 0
	for _, ct := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		j2.Status.Conditions = append(j2.Status.Conditions, batchv1.JobCondition{Type: ct, Status: corev1.ConditionTrue, Reason: "FailedIndexes"})
	}
	if _, err := client.BatchV1().Jobs("ns").UpdateStatus(ctx, j2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var r cmdtest.Result
	for deadline := time.Now().Add(10 * time.Second); ; {
		select {
		case r = <-done:
		case <-time.After(10 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the wait did not end")
			}
			clk.Step(lineagePoll)
			continue
		}
		break
	}
	if r.Code != exitcode.Findings || !strings.Contains(r.Stderr, "recorded 1 terminal pods") {
		t.Errorf("exit %d, want 1 and the deleted pod recorded:\n%s", r.Code, r.Stderr)
	}
	b, _ := os.ReadFile(record)
	if !strings.Contains(string(b), `"uid":"`+string(gone.UID)+`"`) || !strings.Contains(string(b), `"exitCode":7`) {
		t.Errorf("the record lacks the deleted pod:\n%s", b)
	}
}
