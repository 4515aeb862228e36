package jobpolicy

import (
	"math/rand/v2"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// randomCase builds a random Indexed Job and pod set from seed.
func randomCase(seed uint64) (jobB, []podB) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	completions := int32(1 + r.IntN(6))
	job := indexedJob(completions, int32(1+r.IntN(int(completions))))
	if r.IntN(2) == 0 {
		job = job.perIndex(int32(r.IntN(3)))
		if r.IntN(2) == 0 {
			job = job.maxFailed(int32(r.IntN(int(completions) + 1)))
		}
	}
	if r.IntN(3) == 0 {
		job = job.backoff(int32(r.IntN(5)))
	}
	if r.IntN(4) == 0 {
		job = job.onFailure()
	}
	if r.IntN(4) == 0 {
		job = job.suspend()
	}
	if r.IntN(3) == 0 {
		actions := []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailJob}
		if job.Spec.BackoffLimitPerIndex != nil {
			actions = append(actions, batchv1.PodFailurePolicyActionFailIndex)
		}
		job = job.rules(exitRule(actions[r.IntN(len(actions))], in, int32(1+r.IntN(3))))
	} else if r.IntN(2) == 0 {
		job = job.replacement(batchv1.Failed)
	}
	if r.IntN(4) == 0 {
		job = job.success(batchv1.SuccessPolicyRule{SucceededCount: ptr.To(int32(1 + r.IntN(int(completions))))})
	}
	var b1, b2 []int
	for i := 0; i < int(completions); i++ {
		switch r.IntN(4) {
		case 0:
			b1 = append(b1, i)
		case 1:
			b2 = append(b2, i)
		}
	}
	job.Status.CompletedIndexes = setString(b1)
	if job.Spec.BackoffLimitPerIndex != nil {
		job.Status.FailedIndexes = ptr.To(setString(b2))
	}
	job.Status.Failed = int32(r.IntN(4))
	phases := []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}
	var pods []podB
	for k := r.IntN(10); k > 0; k-- {
		p := pod(string(rune('a'+k)), r.IntN(int(completions)+1)).phase(phases[r.IntN(len(phases))])
		p.UID = types.UID(p.Name)
		if r.IntN(3) > 0 {
			p = p.tracked()
		}
		p = p.count(r.IntN(3))
		if r.IntN(3) == 0 {
			p = p.ignored(r.IntN(2))
		}
		if p.Status.Phase == corev1.PodFailed || r.IntN(5) == 0 {
			p = p.exit(int32(r.IntN(4)), t0.Add(-time.Duration(r.IntN(60))*time.Second))
		}
		if r.IntN(4) == 0 {
			p = p.deleted(t0.Add(time.Duration(r.IntN(40))*time.Second), 30)
		}
		if r.IntN(4) == 0 {
			p = p.restarts(int32(r.IntN(3)))
		}
		pods = append(pods, p)
	}
	return job, pods
}

func setString(ix []int) string {
	s := ""
	for k, i := range ix {
		if k > 0 {
			s += ","
		}
		s += string(rune('0' + i))
	}
	return s
}

// FuzzFacts checks the invariants of issue 10 over random Jobs and pod sets: every index in
// exactly one state; a failed index never retried; retries left never negative; counted
// failures equal the controller's rule (status.failed + uncounted + tracked, non-ignored failed
// pods with a valid index, syncJob's jobCtx.failed).
func FuzzFacts(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 3, 42, 1234, 99999} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		job, pods := randomCase(seed)
		obs := observe(job, pods...)
		facts := Evaluate(job.Job, obs, t0)
		if len(facts.Indexes) != int(*job.Spec.Completions) {
			t.Fatalf("%d indexes for completions %d", len(facts.Indexes), *job.Spec.Completions)
		}
		known := map[IndexState]bool{}
		for _, s := range IndexStates {
			known[s] = true
		}
		total := 0
		for _, s := range IndexStates {
			total += facts.Count(s)
		}
		if total != len(facts.Indexes) {
			t.Fatalf("state counts add up to %d, not %d", total, len(facts.Indexes))
		}
		for i, ix := range facts.Indexes {
			if ix.Index != i || !known[ix.State] {
				t.Fatalf("index %d: %+v", i, ix)
			}
			// One state: Succeeded and Failed exactly as the computed sets say.
			if (ix.State == IndexSucceeded) != facts.Succeeded.Has(i) {
				t.Fatalf("index %d: %s vs succeeded %q", i, ix.State, facts.Succeeded.String())
			}
			if !facts.Succeeded.Has(i) && (ix.State == IndexFailed) != facts.Failed.Has(i) {
				t.Fatalf("index %d: %s vs failed %q", i, ix.State, facts.Failed.String())
			}
			// A failed index is never retried: no next attempt, no retries left.
			if ix.State == IndexFailed && (!ix.NextAttemptAt.IsZero() || (ix.RetriesLeft != nil && *ix.RetriesLeft != 0) || ix.LastAttempt) {
				t.Fatalf("failed index %d retried: %+v", i, ix)
			}
			if (ix.State == IndexBackoff) != !ix.NextAttemptAt.IsZero() || (ix.State == IndexBackoff && !ix.NextAttemptAt.After(t0)) {
				t.Fatalf("index %d: backoff %+v", i, ix)
			}
			if ix.RetriesLeft != nil && *ix.RetriesLeft < 0 {
				t.Fatalf("index %d: retries left %d", i, *ix.RetriesLeft)
			}
			if (ix.RetriesLeft != nil) != (job.Spec.BackoffLimitPerIndex != nil) {
				t.Fatalf("index %d: retries left without backoffLimitPerIndex", i)
			}
			if facts.Decision.Kind != Continue && (ix.State == IndexBackoff || ix.State == IndexPending) {
				t.Fatalf("index %d retried by a finishing Job: %+v", i, facts.Decision)
			}
		}
		// Counted failures, written from syncJob / getNewFinishedPods / nonIgnoredFailedPodsCount
		// directly on the pods, not through Counts.
		want := int64(job.Status.Failed)
		for _, p := range pods {
			ix := CompletionIndex(p.Pod)
			if ix < 0 || ix >= int(*job.Spec.Completions) || !HasTrackingFinalizer(p.Pod) || !IsPodFailed(job.Job, p.Pod) {
				continue
			}
			if MatchPodFailurePolicy(job.Spec.PodFailurePolicy, p.Pod).Action == batchv1.PodFailurePolicyActionIgnore {
				continue
			}
			want++
		}
		if facts.CountedFailures != want {
			t.Fatalf("counted failures %d, want %d", facts.CountedFailures, want)
		}
		if facts.FailuresLeft != int64(SpecOf(job.Job).BackoffLimit)+1-want {
			t.Fatalf("failures left %d", facts.FailuresLeft)
		}
		if facts.Decision.Kind == Fail && facts.CanSucceed {
			t.Fatalf("failing Job can succeed: %+v", facts.Decision)
		}
	})
}
