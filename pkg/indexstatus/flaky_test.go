package indexstatus

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// On the capture of a Job whose index 1 exited 1 and index 2 exited 137 before each succeeded
// on its second attempt: the default text names both with their exits, and the JSON holds
// every attempt's exit code, whether the succeeded pods were read or not (live status reads
// the failed pods only).
func TestFlakyFixture(t *testing.T) {
	job, pods, capturedAt := readFixture(t, "flaky-recovered")
	opts := Options{Clock: fixedClock(capturedAt), AllIndexes: true}
	all, err := Build(job, pods, opts)
	if err != nil {
		t.Fatal(err)
	}
	unread, need := unreadReport(t, job, pods, opts)
	if need != "" {
		t.Fatalf("the live read asks for every pod: %s", need)
	}
	textOpts := opts
	textOpts.AllIndexes, textOpts.ListLimit = false, TextViewRows
	text, _ := unreadReport(t, job, pods, textOpts)
	for name, r := range map[string]*IndexedJobStatus{"every pod": all, "not succeeded": unread, "text view": text} {
		if r.Flaky != "1,2" {
			t.Errorf("%s: flaky %q, want 1,2", name, r.Flaky)
		}
		var out strings.Builder
		if err := PrintText(&out, r, false); err != nil {
			t.Fatal(err)
		}
		if want := "Flaky:        2 indexes needed a second attempt: 1 (exit 1), 2 (exit 137)\n"; !strings.Contains(out.String(), want) {
			t.Errorf("%s: the text does not name the flaky indexes, want %q in:\n%s", name, want, out.String())
		}
	}
	for name, r := range map[string]*IndexedJobStatus{"every pod": all, "not succeeded": unread} {
		b, err := json.Marshal(r.Indexes[2])
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Flaky          bool
			AttemptHistory []struct {
				Attempt  int
				Phase    string
				ExitCode *int32
			}
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		h := st.AttemptHistory
		if !st.Flaky || len(h) != 2 || h[0].ExitCode == nil || *h[0].ExitCode != 137 || h[0].Phase != "Failed" ||
			h[1].ExitCode == nil || *h[1].ExitCode != 0 || h[1].Attempt != 2 || h[1].Phase != "Succeeded" {
			t.Errorf("%s: index 2 in JSON: %s; want flaky, attempts exit 137 then 0", name, b)
		}
		if r.Indexes[0].Flaky || r.Indexes[0].AttemptHistory != nil {
			t.Errorf("%s: index 0 succeeded at once but is %+v", name, r.Indexes[0])
		}
	}
}

// The history keeps the latest MaxAttemptHistory attempts and counts the others; a flaky
// index whose earlier pods are gone says so.
func TestAttemptHistoryBounded(t *testing.T) {
	job := newJob("j", 2, 2).backoffLimit(20).status("0,1", nil, 2, 11, 0).get()
	var pods []corev1.Pod
	for a := range 10 {
		d := time.Duration(a) * 10 * time.Second
		pods = append(pods, newPod(job, 0, a, d).exited(int32(a+1), d+5*time.Second).counted().get())
	}
	pods = append(pods, newPod(job, 0, 10, 100*time.Second).exited(0, 105*time.Second).counted().get())
	pods = append(pods, newPod(job, 1, 0, 0).exited(0, 5*time.Second).counted().get())
	r, err := Build(job, pods, Options{Clock: at(time.Hour), AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	st := r.Indexes[0]
	if st.Attempts != 11 || len(st.AttemptHistory) != MaxAttemptHistory || st.AttemptsNotListed != 3 {
		t.Fatalf("attempts %d, history %d, not listed %d; want 11, %d, 3", st.Attempts, len(st.AttemptHistory), st.AttemptsNotListed, MaxAttemptHistory)
	}
	if first, last := st.AttemptHistory[0], st.AttemptHistory[MaxAttemptHistory-1]; first.Attempt != 4 || *first.ExitCode != 4 || last.Attempt != 11 || *last.ExitCode != 0 {
		t.Errorf("history from attempt %d (exit %d) to %d (exit %d), want 4 (4) to 11 (0)", first.Attempt, *first.ExitCode, last.Attempt, *last.ExitCode)
	}
	if r.Flaky != "0" || !strings.Contains(r.flakyWords, "1 index needed more than one attempt: 0 (exit 1, exit 2,") {
		t.Errorf("flaky %q: %q", r.Flaky, r.flakyWords)
	}

	// backoffLimitPerIndex: the succeeded pod's failure count says 2 attempts failed before it;
	// their pods are gone.
	job = newJob("j", 1, 1).perIndex(3, nil).status("0", nil, 1, 2, 0).get()
	pods = []corev1.Pod{newPod(job, 0, 2, time.Minute).exited(0, 2*time.Minute).counted().get()}
	r, err = Build(job, pods, Options{Clock: at(time.Hour), AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 index needed more than one attempt: 0 (2 earlier attempts, their pods gone)"; r.flakyWords != want {
		t.Errorf("flaky words %q, want %q", r.flakyWords, want)
	}
	if st := r.Indexes[0]; st.Attempts != 3 || len(st.AttemptHistory) != 1 || st.AttemptsNotListed != 2 {
		t.Errorf("attempts %d, history %+v, not listed %d", st.Attempts, st.AttemptHistory, st.AttemptsNotListed)
	}
}
