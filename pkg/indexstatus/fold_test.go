package indexstatus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// accumulate adds pods to a new Accumulator for job, folding settled pods with fold.
func accumulate(t *testing.T, job *batchv1.Job, pods []corev1.Pod, fold bool) *Accumulator {
	t.Helper()
	a, err := NewAccumulator(job)
	if err != nil {
		t.Fatal(err)
	}
	if fold {
		a.FoldSettled()
	}
	for i := range pods {
		a.Add(&pods[i])
	}
	return a
}

// reportBytes is the JSON, text and wide report of job and pods, with the settled pods folded
// or each kept.
func reportBytes(t *testing.T, job *batchv1.Job, pods []corev1.Pod, now time.Time, fold bool) (string, int) {
	t.Helper()
	var out bytes.Buffer
	folded := 0
	for _, all := range []bool{true, false} {
		a := accumulate(t, job, pods, fold)
		r := a.Report(Options{Clock: fixedClock(now), AllIndexes: all, ListLimit: 3})
		if a.fold != nil {
			folded = a.fold.pol.Len()
		}
		a.AddCaseCounts(r)
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(js)
		if err := PrintText(&out, r, all); err != nil {
			t.Fatal(err)
		}
	}
	return out.String(), folded
}

// withRetries gives every pod k older attempts, failed and settled as the controller leaves a
// counted failure (as test/bench/statusgen -attempts k+1 does), and job.status.failed the count.
func withRetries(job *batchv1.Job, pods []corev1.Pod, k int) (*batchv1.Job, []corev1.Pod) {
	job = job.DeepCopy()
	var out []corev1.Pod
	for i := range pods {
		for a := range k {
			p := pods[i].DeepCopy()
			p.Name = fmt.Sprintf("%s-a%d", p.Name, a)
			p.UID = types.UID(fmt.Sprintf("%s-a%d", p.UID, a))
			created := p.CreationTimestamp.Add(-time.Duration(k-a) * 30 * time.Second)
			p.CreationTimestamp = metav1.NewTime(created)
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = nil, nil
			p.Finalizers = nil
			p.Status.Phase, p.Status.Reason = corev1.PodFailed, ""
			end := metav1.NewTime(created.Add(time.Second))
			for c := range p.Status.ContainerStatuses {
				p.Status.ContainerStatuses[c].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(1 + a), Reason: "Error", FinishedAt: end}}
			}
			if job.Spec.BackoffLimitPerIndex != nil {
				p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(a)
			}
			out = append(out, *p)
			job.Status.Failed++
		}
		p := pods[i].DeepCopy()
		if job.Spec.BackoffLimitPerIndex != nil && k > 0 {
			p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(k)
		}
		out = append(out, *p)
	}
	return job, out
}

// foldedTerminating folds job's pods and counts the untracked terminating pods below
// completions (jobpolicy.IsUntrackedTerminating): folded, and kept as a summary.
func foldedTerminating(t *testing.T, job *batchv1.Job, pods []corev1.Pod) (folded, kept int) {
	t.Helper()
	a := accumulate(t, job, pods, true)
	a.seal()
	for _, p := range a.fold.pol.All() {
		if p.Terminating() {
			folded++
		}
	}
	for _, s := range a.pods {
		if jobpolicy.IsUntrackedTerminating(&s.Pod) && s.Index < int(*job.Spec.Completions) {
			kept++
		}
	}
	return folded, kept
}

// Folding the settled and the untracked terminating pods changes no byte of any captured
// scenario's report, in every view (json, text, wide, a short list), as captured and with two
// older settled attempts before every pod; the scenarios do hold settled pods to fold, every
// untracked terminating pod is folded, and the scenarios named below hold some.
func TestFoldSettledSameReport(t *testing.T) {
	total, terminating := 0, 0
	// Scenarios whose captured pods include untracked terminating ones below completions:
	// deleted by the controller after removing the finalizer (success policy met, parallelism
	// lowered, the Job failing, ...), one with restarts under OnFailure, one failed at once under
	// TerminatingOrFailed. (elastic-scale-down's terminating pod is beyond completions: kept.)
	wantTerminating := map[string]bool{"completing": true, "prepare-db-terminating": true, "onfailure-restarts": true,
		"parallelism-lowered": true, "deleted-during-retries": true}
	for _, name := range fixtureNames(t) {
		job, captured, at := readFixture(t, name)
		for _, k := range []int{0, 2} {
			job, pods := withRetries(job, captured, k)
			// Every pod twice: the later copy of a pod replaces the earlier, folded or not.
			pods = append(pods, pods...)
			kept, _ := reportBytes(t, job, pods, at, false)
			folded, n := reportBytes(t, job, pods, at, true)
			total += n
			if kept != folded {
				t.Errorf("%s, %d older attempts: the report differs with the settled pods folded (%d folded)\nkept:\n%s\nfolded:\n%s", name, k, n, kept, folded)
			}
			ft, kt := foldedTerminating(t, job, pods)
			if kt != 0 {
				t.Errorf("%s, %d older attempts: %d untracked terminating pods kept as summaries, %d folded", name, k, kt, ft)
			}
			if wantTerminating[name] && ft == 0 {
				t.Errorf("%s, %d older attempts: no untracked terminating pod folded", name, k)
			}
			if k == 0 {
				terminating += ft
				if ft > 0 {
					t.Logf("%s: %d untracked terminating pods folded", name, ft)
				}
			}
		}
	}
	t.Logf("%d pods folded over the captured scenarios, %d untracked terminating ones as captured", total, terminating)
	if total == 0 {
		t.Fatal("no captured scenario has a settled pod: the test does not exercise folding")
	}
}

// A pod given twice (same UID and name) is counted once, the last copy winning whether the
// copies are folded or not: the report is the one of the last copies alone, folded or not.
// Two different pods are both kept, even with the same name in two indexes.
func TestFoldDuplicates(t *testing.T) {
	// Foldable: settled, or untracked terminating.
	settled := func(p *corev1.Pod) bool {
		terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		return terminal == (p.DeletionTimestamp == nil) && !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer)
	}
	cases := 0
	for _, name := range fixtureNames(t) {
		job, pods, at := readFixture(t, name)
		var other, tracked []corev1.Pod
		for i := range pods {
			if !settled(&pods[i]) {
				continue
			}
			// Another state of the same pod: the other outcome, another exit code.
			o := pods[i].DeepCopy()
			// A terminating pod's other state: settled, failed.
			o.Status.Phase = map[corev1.PodPhase]corev1.PodPhase{corev1.PodSucceeded: corev1.PodFailed, corev1.PodFailed: corev1.PodSucceeded}[o.Status.Phase]
			if o.DeletionTimestamp != nil {
				o.Status.Phase, o.DeletionTimestamp = corev1.PodFailed, nil
			}
			for c := range o.Status.ContainerStatuses {
				o.Status.ContainerStatuses[c].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 77, Reason: "Other"}}
			}
			other = append(other, *o)
			// The same pod still tracked: not settled, kept as a summary.
			tr := pods[i].DeepCopy()
			tr.Finalizers = append(tr.Finalizers, batchv1.JobTrackingFinalizer)
			tracked = append(tracked, *tr)
		}
		if len(other) == 0 {
			continue
		}
		cases++
		alone, _ := reportBytes(t, job, pods, at, true)
		for _, v := range []struct {
			what       string
			pods       []corev1.Pod
			sameAsLast bool
		}{
			{"an earlier copy in another state", append(slices.Clone(other), pods...), true},
			{"an earlier copy still tracked", append(slices.Clone(tracked), pods...), true},
			{"a later copy still tracked", append(slices.Clone(pods), tracked...), false},
			{"a later copy in another state", append(slices.Clone(pods), other...), false},
		} {
			kept, _ := reportBytes(t, job, v.pods, at, false)
			folded, _ := reportBytes(t, job, v.pods, at, true)
			if kept != folded {
				t.Errorf("%s, %s: the report differs with the settled pods folded\nkept:\n%s\nfolded:\n%s", name, v.what, kept, folded)
			}
			if v.sameAsLast && folded != alone {
				t.Errorf("%s, %s: the earlier copies left a trace in the report\nwith them:\n%s\nwithout:\n%s", name, v.what, folded, alone)
			}
		}

		// Two different pods with the same name in two indexes: both are kept. (Not a pod the
		// Job's condition names: which of the two the words then give the index of is a
		// matter of map order when not folded.)
		k := slices.IndexFunc(other, func(p corev1.Pod) bool {
			return !slices.ContainsFunc(job.Status.Conditions, func(c batchv1.JobCondition) bool { return strings.Contains(c.Message, p.Name) })
		})
		if k < 0 {
			continue
		}
		twin := other[k].DeepCopy()
		twin.Status.Phase = corev1.PodSucceeded
		idx := (jobpolicy.CompletionIndex(twin) + 1) % int(*job.Spec.Completions)
		twin.UID += "-twin"
		twin.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(idx)
		twin.Labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(idx)
		both := append(slices.Clone(pods), *twin)
		kept, _ := reportBytes(t, job, both, at, false)
		folded, _ := reportBytes(t, job, both, at, true)
		if kept != folded {
			t.Errorf("%s, a pod named as another in index %d: the report differs with the settled pods folded\nkept:\n%s\nfolded:\n%s", name, idx, kept, folded)
		}
		a := accumulate(t, job, both, true)
		if got, want := a.Len(), len(pods)+1; got != want {
			t.Errorf("%s: %d pods recorded, want %d (a pod named as another in index %d is another pod)", name, got, want, idx)
		}
	}
	if cases == 0 {
		t.Fatal("no captured scenario has a settled pod to copy")
	}
}

// Receipt summaries of settled pods: the latest attempt's that left one is shown, folded or
// not, whatever the order of the pods, with earlier attempts' summaries and an unreadable one
// among them.
func TestFoldReceipts(t *testing.T) {
	job := newJob("j", 3, 3).status("0-2", nil, 3, 0, 0).cond("Complete", "CompletionsReached", "", 10*time.Minute).get()
	pod := func(index, attempt int, created time.Duration, completed int) corev1.Pod {
		p := newPod(job, index, attempt, created).exited(0, created+5*time.Second).counted().get()
		return withMessage(p, summaryMessage(t, fmt.Sprintf("s%d-%d", index, attempt), completed, 0))
	}
	truncated := pod(2, 1, 3*time.Second, 200)
	msg := truncated.Status.ContainerStatuses[0].State.Terminated.Message
	truncated = withMessage(truncated, msg[:len(msg)-30])
	// Without backoffLimitPerIndex every pod is attempt 0 for the controller: the latest is
	// the last created.
	pods := []corev1.Pod{
		pod(0, 2, 30*time.Second, 150), pod(0, 0, 0, 200), pod(0, 1, 10*time.Second, 199),
		pod(1, 0, 0, 200), pod(1, 1, time.Second, 190),
		truncated, pod(2, 0, 0, 200),
	}
	var base string
	for _, order := range [][]corev1.Pod{pods, append(slices.Clone(pods[4:]), pods[:4]...)} {
		kept, _ := reportBytes(t, job, order, t0.Add(time.Hour), false)
		folded, n := reportBytes(t, job, order, t0.Add(time.Hour), true)
		if n != len(pods) {
			t.Fatalf("%d pods folded, want %d", n, len(pods))
		}
		if kept != folded {
			t.Errorf("the report differs with the settled pods folded\nkept:\n%s\nfolded:\n%s", kept, folded)
		}
		if base == "" {
			base = folded
		} else if folded != base {
			t.Errorf("the order of the pods changed the report\n%s\n%s", base, folded)
		}
	}
	for _, want := range []string{`"shardID":"s0-2","assigned":200,"evaluated":150`, `"shardID":"s1-1","assigned":200,"evaluated":190`, `"pod":"` + truncated.Name + `"`} {
		if !strings.Contains(base, want) {
			t.Errorf("the report lacks %s:\n%s", want, base)
		}
	}
}

// Settled and untracked terminating pods that do not fit the compact record (here a creation
// time with a fraction of a second) keep their summary, among folded pods of the same index: the report is the same.
func TestFoldSomeNotFitting(t *testing.T) {
	left := 0
	for _, name := range fixtureNames(t) {
		job, captured, at := readFixture(t, name)
		job, pods := withRetries(job, captured, 2)
		for i := range pods {
			if i%2 == 0 {
				pods[i].CreationTimestamp.Time = pods[i].CreationTimestamp.Add(500 * time.Millisecond)
			}
		}
		kept, _ := reportBytes(t, job, pods, at, false)
		folded, n := reportBytes(t, job, pods, at, true)
		a := accumulate(t, job, pods, true)
		for _, s := range a.pods {
			if jobpolicy.IsFoldable(&s.Pod) && s.Index < int(*job.Spec.Completions) {
				left++
			}
		}
		if kept != folded {
			t.Errorf("%s: the report differs with the settled pods folded (%d folded)\nkept:\n%s\nfolded:\n%s", name, n, kept, folded)
		}
	}
	if left == 0 {
		t.Fatal("every settled pod was folded: the test does not mix folded and kept ones")
	}
}

// Settled pods that differ only in who they are share one shape, also when their words
// include the rare ones (a pod reason here), which each summary holds behind its own pointer.
func TestFoldShapesShared(t *testing.T) {
	job, pods, _ := readFixture(t, "seed")
	job, pods = withRetries(job, pods, 3)
	evicted := 0
	for i := range pods {
		if pods[i].Status.Phase == corev1.PodFailed {
			pods[i].Status.Reason = "Evicted"
			evicted++
		}
	}
	a := accumulate(t, job, pods, true)
	if evicted < 2 || a.fold.pol.Len() < evicted {
		t.Fatalf("want at least 2 evicted pods folded, have %d evicted and %d folded", evicted, a.fold.pol.Len())
	}
	seen := map[string]int{}
	for _, s := range a.fold.shapes {
		seen[s.r().podReason]++
	}
	if seen["Evicted"] == 0 || len(a.fold.shapes) > 2*(1+seen["Evicted"]) || seen["Evicted"] > 6 {
		t.Fatalf("%d evicted pods made %d shapes with the reason (of %d in all): want them shared", evicted, seen["Evicted"], len(a.fold.shapes))
	}
}

// withTerminating turns every pod of the Job below completions that is not terminal and not
// being deleted into an untracked terminating one (deleted by the controller after removing the
// finalizer, as deleteJobPods does), with some container restarts, under podReplacementPolicy
// policy, restartPolicy OnFailure if onFailure, and, if lagging, with status.terminating not
// written yet and (under backoffLimitPerIndex) their indexes in status.failedIndexes. It returns
// the Job, the pods and how many were turned.
func withTerminating(job *batchv1.Job, pods []corev1.Pod, at time.Time, policy batchv1.PodReplacementPolicy, onFailure, lagging bool) (*batchv1.Job, []corev1.Pod, int) {
	job = job.DeepCopy()
	job.Spec.PodReplacementPolicy = ptr.To(policy)
	if onFailure {
		job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	}
	var failed []string
	out := make([]corev1.Pod, len(pods))
	n := 0
	for i := range pods {
		p := pods[i].DeepCopy()
		out[i] = *p
		ix := jobpolicy.CompletionIndex(p)
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil ||
			ix < 0 || ix >= int(*job.Spec.Completions) {
			continue
		}
		p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == batchv1.JobTrackingFinalizer })
		p.DeletionTimestamp = ptr.To(metav1.NewTime(at.Add(-time.Duration(10*(i%3)) * time.Second)))
		p.DeletionGracePeriodSeconds = ptr.To(int64(30))
		for c := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[c].RestartCount = int32(i % 3)
		}
		failed = append(failed, strconv.Itoa(ix))
		out[i] = *p
		n++
	}
	if lagging {
		job.Status.Terminating = nil
	}
	if lagging && job.Spec.BackoffLimitPerIndex != nil && len(failed) > 0 {
		if job.Status.FailedIndexes != nil && *job.Status.FailedIndexes != "" {
			failed = append(failed, *job.Status.FailedIndexes)
		}
		job.Status.FailedIndexes = ptr.To(strings.Join(failed, ","))
	}
	return job, out, n
}

// Every captured scenario with its running and pending pods turned untracked terminating (with
// restarts), under podReplacementPolicy Failed and TerminatingOrFailed, restartPolicy Never and
// OnFailure, as captured and with older settled attempts, status.terminating not written yet
// and their indexes recorded failed: the
// report is the same, byte for byte, folded or not, and every such pod is folded.
func TestFoldTerminatingSameReport(t *testing.T) {
	turned, variants := 0, 0
	for _, name := range fixtureNames(t) {
		job, captured, at := readFixture(t, name)
		for _, policy := range []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed} {
			for _, onFailure := range []bool{false, true} {
				for _, k := range []int{0, 1} {
					job, pods, n := withTerminating(job, captured, at, policy, onFailure, k == 1)
					job, pods = withRetries(job, pods, k)
					ft, kt := foldedTerminating(t, job, pods)
					if ft+kt == 0 {
						continue // no pod to turn, none terminating as captured
					}
					what := fmt.Sprintf("%s, %s, OnFailure %v, %d older attempts", name, policy, onFailure, k)
					kept, _ := reportBytes(t, job, pods, at, false)
					folded, _ := reportBytes(t, job, pods, at, true)
					if kept != folded {
						t.Errorf("%s: the report differs with the terminating pods folded\nkept:\n%s\nfolded:\n%s", what, kept, folded)
					}
					if kt != 0 || ft < n {
						t.Errorf("%s: %d untracked terminating pods folded, %d kept, %d turned", what, ft, kt, n)
					}
					turned += n
					variants++
				}
			}
		}
	}
	t.Logf("%d variants, %d pods turned untracked terminating and folded", variants, turned)
	if variants == 0 {
		t.Fatal("no captured scenario has a running or pending pod to turn")
	}
}

// Two counted succeeded pods of one index tie on attempt and creation second: the latest is the
// first in list order (the lower name), whichever arrives first and whether folded or not.
func TestFoldLatestTieListOrder(t *testing.T) {
	job := newJob("j", 2, 2).perIndex(3, nil).status("0", nil, 1, 0, 0).get()
	zzz := newPod(job, 0, 1, 0).exited(0, 5*time.Second).counted().get() // failure count 1
	zzz.Name = "j-0-zzz"
	aaa := newPod(job, 0, 0, 0).ignoredCount(1).exited(0, 5*time.Second).counted().get() // ignored 1
	aaa.Name, aaa.UID = "j-0-aaa", "aaa"
	for _, order := range [][]corev1.Pod{{zzz, aaa}, {aaa, zzz}} {
		kept, _ := reportBytes(t, job, order, t0.Add(time.Hour), false)
		folded, n := reportBytes(t, job, order, t0.Add(time.Hour), true)
		if n != 2 {
			t.Fatalf("%d pods folded, want 2", n)
		}
		if kept != folded {
			t.Errorf("%s first: the report differs with the settled pods folded\nkept:\n%s\nfolded:\n%s", order[0].Name, kept, folded)
		}
		if !strings.Contains(kept, `"failureCount":0,"ignoredFailureCount":1`) {
			t.Errorf("%s first: the latest is not j-0-aaa (first in list order):\n%s", order[0].Name, kept)
		}
	}
}

// Two settled pods without a name (and different UIDs) are two pods, folded or not: a folded
// pod's identity is its index and name, so a pod without a name is not folded.
func TestFoldEmptyNames(t *testing.T) {
	job := newJob("j", 2, 2).status("0", nil, 2, 0, 0).get()
	p := newPod(job, 0, 0, 0).exited(0, 5*time.Second).counted().get()
	q := newPod(job, 0, 1, time.Second).exited(0, 6*time.Second).counted().get()
	p.Name, q.Name = "", ""
	pods := []corev1.Pod{p, q}
	kept, _ := reportBytes(t, job, pods, t0.Add(time.Hour), false)
	folded, _ := reportBytes(t, job, pods, t0.Add(time.Hour), true)
	if kept != folded {
		t.Errorf("the report differs with the settled pods folded\nkept:\n%s\nfolded:\n%s", kept, folded)
	}
	if n := accumulate(t, job, pods, true).Len(); n != 2 {
		t.Errorf("%d pods recorded, want 2", n)
	}
}

// A later copy of a folded pod that is ignored (without the index, or not the Job's) leaves the
// pod out, folded or not; an earlier ignored copy does not.
func TestFoldLaterIgnoredCopy(t *testing.T) {
	job := newJob("j", 2, 2).status("0", nil, 1, 0, 0).get()
	p := newPod(job, 0, 0, 0).exited(0, 5*time.Second).counted().get()
	noIndex := *p.DeepCopy()
	delete(noIndex.Annotations, batchv1.JobCompletionIndexAnnotation)
	delete(noIndex.Labels, batchv1.JobCompletionIndexAnnotation)
	other := *p.DeepCopy()
	other.OwnerReferences[0].UID = "another-job"
	for _, c := range []struct {
		what string
		pods []corev1.Pod
		n    int
	}{
		{"a later copy without the index", []corev1.Pod{p, noIndex}, 0},
		{"a later copy of another Job", []corev1.Pod{p, other}, 0},
		{"an earlier copy without the index", []corev1.Pod{noIndex, p}, 1},
		{"an earlier copy of another Job", []corev1.Pod{other, p}, 1},
	} {
		kept, _ := reportBytes(t, job, c.pods, t0.Add(time.Hour), false)
		folded, _ := reportBytes(t, job, c.pods, t0.Add(time.Hour), true)
		if kept != folded {
			t.Errorf("%s: the report differs with the settled pods folded\nkept:\n%s\nfolded:\n%s", c.what, kept, folded)
		}
		for _, fold := range []bool{false, true} {
			if n := accumulate(t, job, c.pods, fold).Len(); n != c.n {
				t.Errorf("%s, folded %v: %d pods recorded, want %d", c.what, fold, n, c.n)
			}
		}
	}
}

// Len in the middle of adding pods does not lose a receipt summary the report reads later: the
// latest attempt's summary is superseded by a later copy without one, so the earlier attempt's
// is shown, folded or not.
func TestFoldLenKeepsReceipts(t *testing.T) {
	job := newJob("j", 1, 1).status("0", nil, 1, 0, 0).cond("Complete", "CompletionsReached", "", 10*time.Minute).get()
	pod := func(attempt int, created time.Duration, completed int) corev1.Pod {
		p := newPod(job, 0, attempt, created).exited(0, created+5*time.Second).counted().get()
		return withMessage(p, summaryMessage(t, fmt.Sprintf("s0-%d", attempt), completed, 0))
	}
	p0, p1 := pod(0, 0, 100), pod(1, 10*time.Second, 150)
	p1again := withMessage(*p1.DeepCopy(), "")
	out := func(fold bool) string {
		a := accumulate(t, job, []corev1.Pod{p0, p1}, fold)
		if n := a.Len(); n != 2 {
			t.Fatalf("folded %v: %d pods recorded, want 2", fold, n)
		}
		a.Add(&p1again)
		r := a.Report(Options{Clock: fixedClock(t0.Add(time.Hour)), AllIndexes: true})
		a.AddCaseCounts(r)
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(js)
	}
	kept, folded := out(false), out(true)
	if kept != folded {
		t.Errorf("the report differs with the settled pods folded\nkept:\n%s\nfolded:\n%s", kept, folded)
	}
	if want := `"shardID":"s0-0"`; !strings.Contains(kept, want) {
		t.Errorf("the report lacks %s:\n%s", want, kept)
	}
}

// Two pods of one index that left a receipt summary tie on attempt and creation: the report
// shows the first in list order's (the lower name), whatever the arrival or map order and
// whether folded or not.
func TestFoldReceiptTie(t *testing.T) {
	job := newJob("j", 1, 1).status("0", nil, 1, 0, 0).cond("Complete", "CompletionsReached", "", 10*time.Minute).get()
	pod := func(name string, completed int, counted bool) corev1.Pod {
		b := newPod(job, 0, 0, 0).exited(0, 5*time.Second)
		if counted {
			b = b.counted()
		}
		p := withMessage(b.get(), summaryMessage(t, "s-"+name, completed, 0))
		p.Name, p.UID = name, types.UID(name)
		return p
	}
	for _, c := range []struct {
		what string
		pods []corev1.Pod
	}{
		{"both settled", []corev1.Pod{pod("j-0-zzz", 100, true), pod("j-0-aaa", 150, true)}},
		{"the lower name tracked", []corev1.Pod{pod("j-0-zzz", 100, true), pod("j-0-aaa", 150, false)}},
		{"the higher name tracked", []corev1.Pod{pod("j-0-zzz", 100, false), pod("j-0-aaa", 150, true)}},
	} {
		for range 10 { // map order
			for _, order := range [][]corev1.Pod{c.pods, {c.pods[1], c.pods[0]}} {
				for _, fold := range []bool{false, true} {
					got, _ := reportBytes(t, job, order, t0.Add(time.Hour), fold)
					if !strings.Contains(got, `"shardID":"s-j-0-aaa"`) {
						t.Fatalf("%s, %s first, folded %v: the receipt shown is not j-0-aaa's:\n%s", c.what, order[0].Name, fold, got)
					}
				}
			}
		}
	}
}
