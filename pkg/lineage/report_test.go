package lineage

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// seedFixture is the seed scenario as captured from the real control plane (index 2 exits 42
// and is failed by the FailIndex rule, index 4 exits 1 twice), with the annotation create
// writes for the invalid-input code added.
func seedFixture(t *testing.T) (*batchv1.Job, []corev1.Pod) {
	t.Helper()
	dir := filepath.Join("..", "..", "test", "fixtures", "seed")
	job, err := testutil.ReadJob(filepath.Join(dir, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	pods, err := source.ReadPods(filepath.Join(dir, "pods.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if job.Annotations == nil {
		job.Annotations = map[string]string{}
	}
	job.Annotations[shards.Prefix+"invalid-input-exit-code"] = "42"
	return job, pods
}

// retryOf makes seed's retry of indexes 2 and 4 in which index 0 (shard 2) failed again by the
// FailIndex rule and index 1 (shard 4) succeeded. Its pod for index 0 is seed's captured pod
// of index 2, moved to the retry (same exit code, same rule); index 1 has no pod left.
func retryOf(root *batchv1.Job, rootPods []corev1.Pod) (*batchv1.Job, []corev1.Pod) {
	r := root.DeepCopy()
	r.Name, r.UID = root.Name+"-r1", types.UID("uid-r1")
	l := &Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: root.Name, ParentJobUID: string(root.UID), Attempt: 1, Original: indexes.Of(2, 4)}
	for k, v := range l.Annotations() {
		r.Annotations[k] = v
	}
	two := int32(2)
	r.Spec.Completions = &two
	r.Status.CompletedIndexes = "1"
	failed := "0"
	r.Status.FailedIndexes = &failed
	r.Status.Succeeded, r.Status.Failed = 1, 1
	var pods []corev1.Pod
	for _, p := range rootPods {
		if p.Annotations[batchv1.JobCompletionIndexAnnotation] == "2" {
			q := p.DeepCopy()
			q.Name = "seed-r1-0-x"
			q.Annotations[batchv1.JobCompletionIndexAnnotation] = "0"
			q.Labels[batchv1.JobCompletionIndexAnnotation] = "0"
			q.Labels[batchv1.ControllerUidLabel] = "uid-r1"
			q.Labels[batchv1.JobNameLabel] = r.Name
			q.OwnerReferences[0].UID, q.OwnerReferences[0].Name = "uid-r1", r.Name
			pods = append(pods, *q)
		}
	}
	return r, pods
}

func member(t *testing.T, job *batchv1.Job, pods []corev1.Pod, ids []string) Member {
	t.Helper()
	rep, err := indexstatus.Build(job, pods, indexstatus.Options{Clock: clocktesting.NewFakeClock(time.Unix(2e9, 0)), AllIndexes: true, ShardIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	return Member{Job: job, Report: rep}
}

func TestBuildReportSeedAndRetry(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, r1Pods := retryOf(root, rootPods)
	ids := []string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5"}
	rep, err := BuildReport("ns", root.Name, []Member{
		member(t, r1, r1Pods, []string{"s-2", "s-4"}), // any order: sorted by attempt
		member(t, root, rootPods, ids),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "5 of 6 shards succeeded; shard s-2 failed as invalid input (exit 42) in " + root.Name + " and " + r1.Name
	if rep.Verdict != want || rep.Shards != 6 || rep.Summary.Succeeded != 5 || rep.Summary.Failed != 1 || rep.Complete || rep.Missing != "2" {
		t.Fatalf("report: %q %+v", rep.Verdict, rep.Summary)
	}
	s2, s4 := rep.ShardStatuses[2], rep.ShardStatuses[4]
	if s2.From != r1.Name || !s2.InvalidInput || len(s2.Runs) != 2 || s2.Runs[1].Job != r1.Name || s2.Runs[1].Index != 0 || s2.Runs[1].State != indexstatus.StateFailed || !s2.Runs[1].InvalidInput {
		t.Errorf("shard 2: %+v", s2)
	}
	if s4.State != indexstatus.StateSucceeded || s4.From != r1.Name || s4.Attempt != 1 || s4.ShardID != "s-4" {
		t.Errorf("shard 4: %+v", s4)
	}
	if s0 := rep.ShardStatuses[0]; s0.From != root.Name || len(s0.Runs) != 1 {
		t.Errorf("shard 0: %+v", s0)
	}
	var buf bytes.Buffer
	if err := PrintText(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(buf.String(), "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("a line of %d columns (issue 22: was 134): %q", len([]rune(l)), l)
		}
	}
	folded := strings.Join(strings.Fields(buf.String()), " ")
	for _, w := range []string{want + ".", r1.Name + ":Failed", " 4 (s-4): "} {
		if !strings.Contains(folded, w) {
			t.Errorf("text lacks %q:\n%s", w, buf.String())
		}
	}
	if strings.Contains(folded, " 0 (s-0): ") {
		t.Errorf("text lists shard 0, which simply succeeded in the root:\n%s", buf.String())
	}
}

func TestBuildReportWithoutRootAndStrangers(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, r1Pods := retryOf(root, rootPods)
	other := r1.DeepCopy()
	other.Name = "other-r1"
	other.Annotations[shards.AnnotationRootJobUID] = "someone-else"
	rep, err := BuildReport("ns", root.Name, []Member{member(t, r1, r1Pods, nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Shards != 2 || len(rep.Notes) != 2 || !strings.Contains(rep.Notes[0], "is gone") || rep.Complete {
		t.Errorf("without root: %d shards, notes %v", rep.Shards, rep.Notes)
	}
	rep, _ = BuildReport("ns", root.Name, []Member{member(t, root, rootPods, nil), member(t, other, nil, nil)}, nil)
	if len(rep.Jobs) != 1 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "not this one") {
		t.Errorf("stranger: jobs %+v notes %v", rep.Jobs, rep.Notes)
	}
}

// TestBuildReportPlainJob: the seed fixture as kubectl applied it (no create annotations, no
// shard IDs) and a retry of shard 2 as retry makes it for such a Job (one Job of one index,
// original-indexes 2): the shard is its index, and its FailIndex rule on exit 42 is invalid
// input. Before, the verdict said "index 2 failed (exit code 42)".
func TestBuildReportPlainJob(t *testing.T) {
	root, rootPods := seedFixture(t)
	delete(root.Annotations, shards.Prefix+"invalid-input-exit-code")
	r1, r1Pods := retryOf(root, rootPods)
	r1.Name = root.Name + "-r1-2"
	l := &Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: root.Name, ParentJobUID: string(root.UID), Attempt: 1, Original: indexes.Of(2)}
	for k, v := range l.Annotations() {
		r1.Annotations[k] = v
	}
	one := int32(1)
	r1.Spec.Completions = &one
	r1.Status.CompletedIndexes = ""
	r1.Status.Succeeded, r1.Status.Failed = 0, 1
	for i := range r1Pods {
		r1Pods[i].Labels[batchv1.JobNameLabel] = r1.Name
		r1Pods[i].OwnerReferences[0].Name = r1.Name
	}
	rep, err := BuildReport("ns", root.Name, []Member{member(t, root, rootPods, nil), member(t, r1, r1Pods, nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "4 of 6 shards succeeded; shard 2 failed as invalid input (exit 42) in " + root.Name + " and " + r1.Name +
		"; shard 4 failed (exit code 1 in container worker) in " + root.Name
	if rep.Verdict != want {
		t.Fatalf("verdict %q\nwant    %q", rep.Verdict, want)
	}
}

// The root is gone (deleted by hand or by its TTL) and its only retry succeeded every shard it
// ran: the verdict counts the manifest's 6 shards, not the retry's 2 (issue 26, item 4: it
// said "complete" before).
func TestBuildReportCountsTheManifestWithoutRoot(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, _ := retryOf(root, rootPods)
	r1.Status.CompletedIndexes, r1.Status.FailedIndexes = "0-1", nil
	r1.Status.Succeeded, r1.Status.Failed = 2, 0
	ids := []string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5"}
	rep, err := BuildReportOf("ns", RunID{Root: root.Name}, []Member{member(t, r1, nil, []string{"s-2", "s-4"})}, &Manifest{IDs: ids, From: "configmap seed-retry-x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "2 of 6 shards succeeded; 4 shards without a result (s-0, s-1, s-3, s-5): the root Job that ran them is gone"
	if rep.Complete || rep.Shards != 6 || rep.NoEvidence != 4 || rep.Missing != "0,1,3,5" || rep.Verdict != want || rep.ManifestFrom != "configmap seed-retry-x" {
		t.Fatalf("complete=%v shards=%d noEvidence=%d missing=%q\n%q", rep.Complete, rep.Shards, rep.NoEvidence, rep.Missing, rep.Verdict)
	}
	if s := rep.ShardStatuses[3]; s.State != StateMissing || s.ShardID != "s-3" || len(s.Runs) != 0 {
		t.Errorf("shard 3: %+v", s)
	}
	// Without a manifest the count is unknown: never complete.
	rep, err = BuildReport("ns", root.Name, []Member{member(t, r1, nil, nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Complete || !strings.Contains(strings.Join(rep.Notes, "\n"), "how many shards it has is unknown") {
		t.Errorf("without root and manifest: complete=%v notes %v", rep.Complete, rep.Notes)
	}
	// With the root, its completions are the count (and the manifest is not needed).
	rep, _ = BuildReport("ns", root.Name, []Member{member(t, root, rootPods, ids)}, nil)
	if rep.Shards != 6 || rep.NoEvidence != 0 || rep.ManifestFrom != "job "+root.Name {
		t.Errorf("with root: %d shards, %d without evidence, from %q", rep.Shards, rep.NoEvidence, rep.ManifestFrom)
	}
}

func TestManifestFromConfigMap(t *testing.T) {
	m, err := shards.Parse("m", []byte("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: m}\nrevision: 1\nshards:\n- {id: a, cases: [c1]}\n- {id: b, cases: [c2]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{Data: map[string]string{shards.KeyManifest: string(m.Canonical())}}
	cm.Name = "m-retry-1"
	got, ok, err := ManifestFromConfigMap(cm, m.Hash())
	if err != nil || !ok || strings.Join(got.IDs, ",") != "a,b" {
		t.Fatalf("%+v %v %v", got, ok, err)
	}
	if _, _, err := ManifestFromConfigMap(cm, "other"); err == nil || !strings.Contains(err.Error(), "replaced or changed") {
		t.Errorf("a changed copy is trusted: %v", err)
	}
	if _, ok, err := ManifestFromConfigMap(&corev1.ConfigMap{}, ""); ok || err != nil {
		t.Errorf("no copy: %v %v", ok, err)
	}
}

// The shard failed with exit 1 in the root and as invalid input in the retry: the verdict says
// per Job what happened (issue 26, item 13: it said "failed as invalid input in j2, j2-r1").
func TestVerdictSaysPerJobWhatHappened(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, r1Pods := retryOf(root, rootPods)
	// In the root, index 2 failed with exit 1 (not the invalid-input code), twice.
	for i := range rootPods {
		p := &rootPods[i]
		if p.Annotations[batchv1.JobCompletionIndexAnnotation] != "2" {
			continue
		}
		for k := range p.Status.ContainerStatuses {
			if term := p.Status.ContainerStatuses[k].State.Terminated; term != nil {
				term.ExitCode = 1
			}
		}
	}
	ids := []string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5"}
	rep, err := BuildReport("ns", root.Name, []Member{member(t, root, rootPods, ids), member(t, r1, r1Pods, []string{"s-2", "s-4"})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "5 of 6 shards succeeded; shard s-2 failed (exit code 1 in container worker) in " + root.Name + ", then failed as invalid input (exit 42) in " + r1.Name
	if rep.Verdict != want {
		t.Errorf("verdict\n%q\nwant\n%q", rep.Verdict, want)
	}
	if runs := rep.ShardStatuses[2].Runs; len(runs) != 2 || runs[0].InvalidInput || !runs[1].InvalidInput || runs[0].LastExitCode == nil || *runs[0].LastExitCode != 1 {
		t.Errorf("runs: %+v", runs)
	}
}

// runningRetry is a retry of root that runs root indexes orig and has not finished (no Complete
// or Failed condition): its indexes in completed already succeeded, the others run.
func runningRetry(root *batchv1.Job, orig indexes.Set, completed string) *batchv1.Job {
	r := root.DeepCopy()
	r.Name, r.UID = root.Name+"-r1", types.UID("uid-r1")
	l := &Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: root.Name, ParentJobUID: string(root.UID), Attempt: 1, Original: orig}
	for k, v := range l.Annotations() {
		r.Annotations[k] = v
	}
	n := int32(orig.Len())
	r.Spec.Completions = &n
	done, _ := indexes.ParseLenient(completed, int(n))
	r.Status = batchv1.JobStatus{CompletedIndexes: completed, Succeeded: int32(done.Len()), Active: n - int32(done.Len()), StartTime: root.Status.StartTime}
	return r
}

// Issue 36 item 5: while a retry still runs, a lineage verdict must not call the run complete.
// A shard is settled only when every Job that runs it has finished: a retry whose pods all
// succeeded but that has no Complete condition yet, and a retry re-running shards the root
// succeeded (reconcile's retry of receipts), both leave the run unsettled; the same retry
// once Complete settles it.
func TestAShardIsSettledOnlyWhenItsJobsFinished(t *testing.T) {
	root, rootPods := seedFixture(t)
	ids := []string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5"}
	for _, c := range []struct {
		name                string
		orig                indexes.Set
		completed           string
		succeeded, unsettle int
		verdict             string
	}{
		// Root shards 2 and 4 failed; the retry's two indexes succeeded, the Job not Complete.
		{"retry of failed shards", indexes.Of(2, 4), "0-1", 4, 2,
			"4 of 6 shards succeeded; 2 shards are run by a Job still running (seed-r1): not settled until it finishes"},
		// The retry re-runs shards 0 and 1, which the root succeeded, and shard 2.
		{"retry re-running succeeded shards", indexes.Of(0, 1, 2), "", 2, 3,
			"2 of 6 shards succeeded; shard s-4 failed (exit code 1 in container worker) in seed; 3 shards are run by a Job still running (seed-r1): not settled until it finishes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r1 := runningRetry(root, c.orig, c.completed)
			var r1IDs []string
			for i := range c.orig.All() {
				r1IDs = append(r1IDs, ids[i])
			}
			rep, err := BuildReport("ns", root.Name, []Member{member(t, root, rootPods, ids), member(t, r1, nil, r1IDs)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Complete || rep.Unsettled != c.unsettle || rep.Summary.Succeeded != c.succeeded || rep.Verdict != c.verdict {
				t.Fatalf("complete=%v unsettled=%d succeeded=%d\nverdict %q\nwant    %q", rep.Complete, rep.Unsettled, rep.Summary.Succeeded, rep.Verdict, c.verdict)
			}
			for i := range c.orig.All() {
				if !rep.ShardStatuses[i].Unsettled {
					t.Errorf("shard %d is not marked unsettled: %+v", i, rep.ShardStatuses[i])
				}
			}
		})
	}
	// The first case once the retry is Complete: settled, every shard succeeded.
	r1 := runningRetry(root, indexes.Of(2, 4), "0-1")
	r1.Status.Active, r1.Status.Succeeded = 0, 2
	r1.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue}, {Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	rep, err := BuildReport("ns", root.Name, []Member{member(t, root, rootPods, ids), member(t, r1, nil, []string{"s-2", "s-4"})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || rep.Unsettled != 0 || rep.Verdict != "6 of 6 shards succeeded" {
		t.Fatalf("complete=%v unsettled=%d verdict %q", rep.Complete, rep.Unsettled, rep.Verdict)
	}
}

// Issue 35 item 1: the root deleted and a Job of its name made again, which succeeded every
// shard. The report of the retry's run (the UID the retry records) must not count the new
// Job's shards: it is 2 of 6 with a result, not complete, the new Job left out with a note.
// Before the UID rule the new Job was taken for the root ("6 of 6 shards succeeded").
func TestBuildReportReplacedRootIsAnotherRun(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, _ := retryOf(root, rootPods)
	r1.Status.CompletedIndexes, r1.Status.FailedIndexes = "0-1", nil
	r1.Status.Succeeded, r1.Status.Failed = 2, 0
	again := root.DeepCopy()
	again.UID = "uid-new-root"
	again.Status.CompletedIndexes, again.Status.FailedIndexes = "0-5", nil
	again.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	ids := []string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5"}
	run := RunOf(r1)
	if run != (RunID{Root: root.Name, RootUID: string(root.UID)}) || InRun(again, run) || !InRun(r1, run) || SameRun(again, r1) {
		t.Fatalf("run %+v: the new Job is in it: %v", run, InRun(again, run))
	}
	members := []Member{member(t, again, nil, ids), member(t, r1, nil, []string{"s-2", "s-4"})}
	rep, err := BuildReportOf("ns", run, members, &Manifest{IDs: ids, From: "configmap seed-retry-x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "2 of 6 shards succeeded; 4 shards without a result (s-0, s-1, s-3, s-5): the root Job that ran them is gone"
	if rep.Complete || rep.Shards != 6 || rep.Summary.Succeeded != 2 || rep.Verdict != want || len(rep.Jobs) != 1 || rep.Jobs[0].Name != r1.Name || rep.Root.UID != string(root.UID) {
		t.Fatalf("complete=%v shards=%d succeeded=%d jobs=%+v root=%+v\n%q", rep.Complete, rep.Shards, rep.Summary.Succeeded, rep.Jobs, rep.Root, rep.Verdict)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "is not the root of this run") {
		t.Errorf("no note on the new Job: %s", notes)
	}
	// The new Job's own run: the old retry is not its.
	rep, _ = BuildReportOf("ns", RunOf(again), members, nil, nil)
	if !rep.Complete || len(rep.Jobs) != 1 || rep.Jobs[0].Name != again.Name {
		t.Errorf("the new Job's run: complete=%v jobs=%+v", rep.Complete, rep.Jobs)
	}
	// The text: the Missing group says no Job shows them, not "via : indexes".
	var b bytes.Buffer
	if err := PrintText(&b, mustReport(BuildReportOf("ns", run, members[1:], &Manifest{IDs: ids, From: "configmap x"}, nil))(t), false); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "via :") || !strings.Contains(out, "Missing, 4 shards, no Job of the lineage shows them: indexes 0,1,3,5") {
		t.Errorf("text:\n%s", out)
	}
}

func mustReport(r *Report, err error) func(t *testing.T) *Report {
	return func(t *testing.T) *Report {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// Issue 35 item 5: with the root and every manifest copy gone the total is unknown: the
// verdict and the headline must not say "2 of 2 shards succeeded".
func TestBuildReportUnknownTotal(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, _ := retryOf(root, rootPods)
	r1.Status.CompletedIndexes, r1.Status.FailedIndexes = "0-1", nil
	r1.Status.Succeeded, r1.Status.Failed = 2, 0
	rep := mustReport(BuildReport("ns", root.Name, []Member{member(t, r1, nil, nil)}, nil))(t)
	if rep.Complete || strings.Contains(rep.Verdict, "2 of 2 shards") || !strings.Contains(rep.Verdict, "total number of shards is unknown") {
		t.Errorf("complete=%v verdict %q", rep.Complete, rep.Verdict)
	}
	var b bytes.Buffer
	if err := PrintText(&b, rep, false); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "2 of 2") || !strings.Contains(out, "2 shards shown of an unknown total") {
		t.Errorf("text:\n%s", out)
	}
}

// TestBuildReportTamperedIndexMap (issue 35, LOW): a retry whose original-indexes annotation
// was changed by hand to name root index 6 of a 6-shard run is left out with a note, instead
// of making the run "6 of 7 shards".
func TestBuildReportTamperedIndexMap(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, r1Pods := retryOf(root, rootPods)
	r1.Annotations[shards.AnnotationOriginalIndexes] = "2,6"
	ids := []string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5"}
	rep, err := BuildReport("ns", root.Name, []Member{member(t, root, rootPods, ids), member(t, r1, r1Pods, []string{"s-2", "s-6"})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Shards != 6 || len(rep.ShardStatuses) != 6 || strings.Contains(rep.Verdict, "of 7") {
		t.Errorf("a hand-changed index map adds a shard: %d shards, %q", rep.Shards, rep.Verdict)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), `Job "seed-r1" is left out: its index map names root index 6, but the run has 6 shards`) {
		t.Errorf("no note on the left-out retry: %q", rep.Notes)
	}
}

// plainRetryOf makes the Job the plain retry makes for root index ri of root (one index,
// named root-r1-<ri>), failed with copies of the root's pods of index from.
func plainRetryOf(root *batchv1.Job, rootPods []corev1.Pod, ri, from int) (*batchv1.Job, []corev1.Pod) {
	r := root.DeepCopy()
	r.Name = root.Name + "-r1-" + strconv.Itoa(ri)
	r.UID = types.UID("uid-" + r.Name)
	l := &Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: root.Name, ParentJobUID: string(root.UID), Attempt: 1, Original: indexes.Of(ri)}
	for k, v := range l.Annotations() {
		r.Annotations[k] = v
	}
	one := int32(1)
	r.Spec.Completions = &one
	failed := "0"
	r.Status.CompletedIndexes, r.Status.FailedIndexes = "", &failed
	var pods []corev1.Pod
	for _, p := range rootPods {
		if p.Annotations[batchv1.JobCompletionIndexAnnotation] != strconv.Itoa(from) {
			continue
		}
		q := p.DeepCopy()
		q.Name = r.Name + "-0-" + p.Name[len(p.Name)-5:]
		q.Annotations[batchv1.JobCompletionIndexAnnotation] = "0"
		q.Labels[batchv1.JobCompletionIndexAnnotation] = "0"
		q.Labels[batchv1.ControllerUidLabel] = string(r.UID)
		q.Labels[batchv1.JobNameLabel] = r.Name
		q.OwnerReferences[0].UID, q.OwnerReferences[0].Name = r.UID, r.Name
		pods = append(pods, *q)
	}
	r.Status.Succeeded, r.Status.Failed = 0, int32(len(pods))
	return r, pods
}

// Issue 36 item 10: shards that failed alike are one clause of the verdict and one group of
// the text, also when a plain Job's retry ran each in a Job of its own (seed-r1-2, seed-r1-4).
// Before: "shard 2 failed (exit code 1) in seed and seed-r1-2; shard 4 failed (exit code 1)
// in seed and seed-r1-4", and a group per retry Job.
func TestVerdictGroupsShardsByCause(t *testing.T) {
	root, rootPods := seedFixture(t)
	delete(root.Annotations, shards.Prefix+"invalid-input-exit-code")
	// Index 2 failed with exit 1 too (not 42, so no FailIndex rule): the same cause as index 4.
	for i := range rootPods {
		if rootPods[i].Annotations[batchv1.JobCompletionIndexAnnotation] != "2" {
			continue
		}
		for k := range rootPods[i].Status.ContainerStatuses {
			if term := rootPods[i].Status.ContainerStatuses[k].State.Terminated; term != nil {
				term.ExitCode = 1
			}
		}
	}
	r2, r2Pods := plainRetryOf(root, rootPods, 2, 4)
	r4, r4Pods := plainRetryOf(root, rootPods, 4, 4)
	rep, err := BuildReport("ns", root.Name, []Member{member(t, root, rootPods, nil), member(t, r4, r4Pods, nil), member(t, r2, r2Pods, nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "4 of 6 shards succeeded; shards 2,4 failed (exit code 1 in container worker) in seed and seed-r1-<root index>"
	if rep.Verdict != want {
		t.Fatalf("verdict %q\nwant    %q", rep.Verdict, want)
	}
	if runs := rep.ShardStatuses[4].Runs; len(runs) != 2 || runs[1].Job != r4.Name || runs[1].LastContainer != "worker" {
		t.Errorf("shard 4 runs: %+v", runs)
	}
	var buf bytes.Buffer
	if err := PrintText(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(buf.String()), " ")
	if g := "Failed, 2 shards, exit 1, via seed:Failed seed-r1-<root index>:Failed: indexes 2,4 2 and 1 alike:"; !strings.Contains(out, g) || strings.Count(buf.String(), "Failed, ") != 1 {
		t.Errorf("text lacks the one group %q:\n%s", g, buf.String())
	}
	// A shard that failed otherwise stays a clause of its own.
	for i := range r2Pods {
		for k := range r2Pods[i].Status.ContainerStatuses {
			if term := r2Pods[i].Status.ContainerStatuses[k].State.Terminated; term != nil {
				term.ExitCode, term.Reason = 137, "OOMKilled"
			}
		}
	}
	rep = mustReport(BuildReport("ns", root.Name, []Member{member(t, root, rootPods, nil), member(t, r4, r4Pods, nil), member(t, r2, r2Pods, nil)}, nil))(t)
	want = "4 of 6 shards succeeded; shard 2 failed (exit code 1 in container worker) in seed, then failed (exit code 137 in container worker, OOMKilled) in seed-r1-2; shard 4 failed (exit code 1 in container worker) in seed and seed-r1-4"
	if rep.Verdict != want {
		t.Errorf("verdict %q\nwant    %q", rep.Verdict, want)
	}
}

// -o wide of a lineage stays within 160 columns as status -o wide does (issue 36 item 7): a
// shard's row was 169 columns with its whole detail. Every shard still has its row, and a cut
// DETAIL is the start of the shard's detail (-o json has it whole).
func TestLineageWideIsBounded(t *testing.T) {
	root, rootPods := seedFixture(t)
	r1, r1Pods := retryOf(root, rootPods)
	ids := []string{"s-0", "s-1", "s-2", "s-3", "s-4", "s-5"}
	rep := mustReport(BuildReport("ns", root.Name, []Member{member(t, root, rootPods, ids), member(t, r1, r1Pods, []string{"s-2", "s-4"})}, nil))(t)
	var buf bytes.Buffer
	if err := PrintText(&buf, rep, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, l := range lines {
		if n := len([]rune(l)); n > 160 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	head := -1
	for k, l := range lines {
		if strings.HasPrefix(l, "INDEX ") {
			head = k
		}
	}
	if head < 0 || len(lines) < head+1+len(rep.ShardStatuses) {
		t.Fatalf("no row per shard:\n%s", buf.String())
	}
	at := strings.Index(lines[head], "DETAIL")
	for k, s := range rep.ShardStatuses {
		row := lines[head+1+k]
		if !strings.HasPrefix(row, strconv.Itoa(s.Index)+" ") || len(row) < at {
			t.Fatalf("row of shard %d: %q", s.Index, row)
		}
		detail := row[at:]
		if short, ok := strings.CutSuffix(detail, "..."); ok && strings.HasPrefix(s.Detail, short) {
			continue
		}
		if detail != s.Detail {
			t.Errorf("shard %d: DETAIL %q, JSON %q", s.Index, detail, s.Detail)
		}
	}
}

// BuildReport folds the members (the root, named rootName, and its retries; other Jobs are
// ignored) into one report per original shard.
func BuildReport(namespace, rootName string, members []Member, notes []string) (*Report, error) {
	return BuildReportOf(namespace, RunID{Root: rootName}, members, nil, notes)
}

// SameRun reports whether a and b belong to the same run.
func SameRun(a, b *batchv1.Job) bool { return a != nil && b != nil && RunOf(a) == RunOf(b) }
