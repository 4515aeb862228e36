package indexstatus

import (
	"strings"
	"testing"
)

// The cases of issue 10 on captures from the real control plane: the states are the ones the
// controller's behaviour there shows (test/e2e/policy_scenarios_test.go checks it from the
// controller source), and the words no longer say what it does not do.

func captureStates(t *testing.T, f fixture, want map[int]State) {
	t.Helper()
	wantStates(t, f.r, want)
}

func TestCapturedCases(t *testing.T) {
	t.Run("case 2: deleted on the last attempt under TerminatingOrFailed", func(t *testing.T) {
		f := loadFixture(t, "deleted-during-retries")
		captureStates(t, f, map[int]State{0: StateRunning, 1: StateFailed, 2: StateRunning})
		st := indexOf(t, f.r, 1)
		wantContains(t, "index 1", st.Detail, "is being deleted", "counts as a failure at once", "never started again")
		if *st.RetriesLeft != 0 {
			t.Errorf("retries left %d", *st.RetriesLeft)
		}
		// Case 5: index 2's replacement carries the failure and is on its last attempt.
		if st := indexOf(t, f.r, 2); st.FailureCount != 1 || *st.RetriesLeft != 0 || st.Attempts != 2 {
			t.Errorf("index 2: %+v", st)
		}
	})
	t.Run("case 4: pods deleted after lowering parallelism are not counted", func(t *testing.T) {
		f := loadFixture(t, "parallelism-lowered")
		for _, i := range []int{0, 1} {
			st := indexOf(t, f.r, i)
			if st.State != StateTerminating || strings.Contains(st.Detail, "counts as failed") || st.FailureCount != 0 {
				t.Errorf("index %d: %s %d: %s", i, st.State, st.FailureCount, st.Detail)
			}
			wantContains(t, "detail", st.Detail, "not counted as failed")
		}
	})
	t.Run("case 6: a succeeded pod without the finalizer after a scale-down and up", func(t *testing.T) {
		f := loadFixture(t, "elastic-scale-up-again")
		st := indexOf(t, f.r, 4)
		if st.State == StateSucceeded || len(st.Pods) != 2 {
			t.Errorf("index 4: %s pods %v", st.State, st.Pods)
		}
		wantContains(t, "next", strings.Join(f.r.Next, "\n"), "Index 4 has finished pods without their tracking finalizer", "the index runs again")
		if f.r.Summary.Succeeded != 0 {
			t.Errorf("%d succeeded", f.r.Summary.Succeeded)
		}
	})
	t.Run("case 1: the Job completed through its success policy with a failed index", func(t *testing.T) {
		f := loadFixture(t, "success-policy-after-failed-index")
		captureStates(t, f, map[int]State{0: StateFailed, 1: StateSucceeded, 2: StateSucceeded})
		if f.r.Phase != PhaseComplete || f.r.Reason != "SuccessPolicy" {
			t.Errorf("phase %s reason %s", f.r.Phase, f.r.Reason)
		}
	})
	t.Run("case 3: OnFailure restarts counted against backoffLimit", func(t *testing.T) {
		f := loadFixture(t, "onfailure-restarts")
		wantContains(t, "explanation", f.r.Explanation, "Container restarts reached backoffLimit 2")
	})
}
