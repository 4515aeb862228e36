package oracle

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"
	"github.com/kubectl-indexed/kubectl-indexed/test/oracle/job"
)

var snapshots = flag.Int("oracle.snapshots", 1000, "random mid-run snapshots for status's next-sync statements")

// A Snapshot is a random Case played by the controller up to At (since the Job's creation).
type Snapshot struct {
	Case
	At string `json:"at"`
	// LowerParallelism, when set, is the parallelism a user lowered the Job to at At (the
	// controller has not synced since).
	LowerParallelism int32 `json:"lowerParallelismTo,omitempty"`
	// Deleted: the Job is being deleted in the foreground from At.
	Deleted bool `json:"deleted,omitempty"`
}

// nextSyncClaims are status's statements about the next sync, from the report's data.
type nextSyncClaims struct {
	finishes    *indexstatus.Entry // NextSyncFinishes
	deleting    bool               // BeingDeleted
	running     bool               // phase Running: no finishing condition expected otherwise
	notNow      []int              // retrying indexes status says are not created now (backoff left, or waiting for a slot)
	waits       int                // of which waiting for a slot
	dueNow      []int              // retrying indexes status says are due now (a slot and no backoff left)
	firstDue    time.Duration      // the earliest backoff left of a Retry entry (0: none)
	perIndex    bool
	hasDeadline bool
}

func claimsOf(r *indexstatus.IndexedJobStatus, j *batchv1.Job) nextSyncClaims {
	c := nextSyncClaims{running: r.Phase == indexstatus.PhaseRunning, perIndex: j.Spec.BackoffLimitPerIndex != nil,
		hasDeadline: j.Spec.ActiveDeadlineSeconds != nil}
	waits := map[int]bool{}
	for k := range r.NextEntries {
		e := &r.NextEntries[k]
		switch e.Kind {
		case indexstatus.EntryNextSyncFinishes:
			c.finishes = e
		case indexstatus.EntryBeingDeleted:
			c.deleting = true
		case indexstatus.EntryRetryWaits:
			for i := range e.Indexes.All() {
				waits[i] = true
			}
		}
	}
	retry := map[int]bool{}
	for k := range r.NextEntries {
		if e := &r.NextEntries[k]; e.Kind == indexstatus.EntryRetry {
			for i := range e.Indexes.All() {
				retry[i] = true
			}
		}
	}
	for _, st := range r.Indexes {
		if st.BackoffRemainingSeconds == nil || !(retry[st.Index] || waits[st.Index]) {
			continue
		}
		left := time.Duration(*st.BackoffRemainingSeconds) * time.Second
		switch {
		case waits[st.Index]:
			c.notNow = append(c.notNow, st.Index)
			c.waits++
		case !c.perIndex:
			// Without backoffLimitPerIndex the delay is the controller's in-memory record,
			// which status estimates from the pods (BackoffEstimated): no exact claim.
			continue
		case left > 0:
			c.notNow = append(c.notNow, st.Index)
		default:
			c.dueNow = append(c.dueNow, st.Index)
		}
		if retry[st.Index] && left > 0 && (c.firstDue == 0 || left < c.firstDue) {
			c.firstDue = left
		}
	}
	return c
}

var finishingTypes = []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed, batchv1.JobSuccessCriteriaMet, batchv1.JobComplete}

// newConditions are the finishing conditions the sync added, TYPE/REASON.
func newConditions(before, after *batchv1.Job) []string {
	var out []string
	for _, c := range after.Status.Conditions {
		if c.Status != corev1.ConditionTrue || !slices.Contains(finishingTypes, c.Type) {
			continue
		}
		if hasCondition(before, c.Type, c.Reason) {
			continue
		}
		out = append(out, string(c.Type)+"/"+c.Reason)
	}
	return out
}

// check compares status's claims with what one syncJob did.
func (c nextSyncClaims) check(before *batchv1.Job, got synced) []string {
	var out []string
	added := newConditions(before, got.Job)
	switch {
	case c.finishes != nil:
		ok := false
		for _, a := range added {
			ok = ok || strings.HasSuffix(a, "/"+c.finishes.Reason)
		}
		if !ok {
			out = append(out, fmt.Sprintf("status: the next sync finishes the Job (%s); the controller added %v", c.finishes.Reason, added))
		}
	case c.running && !c.deleting && len(added) > 0:
		// (A Job being deleted may still get a finishing condition: syncJob evaluates them
		// before it skips manageJob; status says only that nothing more is created.)
		out = append(out, fmt.Sprintf("status: Running, nothing said of finishing; the controller added %v", added))
	}
	if (c.finishes != nil || c.deleting) && len(got.Created) > 0 {
		out = append(out, fmt.Sprintf("status: nothing is created; the controller created %v", got.Created))
	}
	for _, i := range c.notNow {
		if slices.Contains(got.Created, i) {
			out = append(out, fmt.Sprintf("status: index %d is not retried now; the controller created it", i))
		}
	}
	if c.finishes == nil && !c.deleting && len(added) == 0 {
		for _, i := range c.dueNow {
			if !slices.Contains(got.Created, i) {
				out = append(out, fmt.Sprintf("status: index %d is due to be retried now; the controller did not create it", i))
			}
		}
		// Under backoffLimitPerIndex the controller requeues for the earliest backoff
		// (getPodCreationInfoForIndependentIndexes) when it creates nothing; status rounds up.
		if c.perIndex && len(got.Created) == 0 && c.firstDue > 0 && !c.hasDeadline {
			if got.Requeue < 0 || got.Requeue > c.firstDue || got.Requeue <= c.firstDue-time.Second {
				out = append(out, fmt.Sprintf("status: the first retry in %s; the controller syncs again in %s", c.firstDue, got.Requeue))
			}
		}
	}
	return out
}

// snapshotAt plays c to at and checks status's claims against one syncJob there; it reports
// false when the Job finished before at.
func snapshotAt(t *testing.T, c *Case, at time.Duration, lower int32, deleted bool, seen *claimCounts) (diffs []string, played bool) {
	t.Helper()
	b, err := job.New(simulate.Defaulted(c.job()), c.plan(), t0, job.Options{Horizon: horizon})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.PlayUntil(at); err != nil {
		t.Fatal(err)
	}
	if b.Finished() {
		return nil, false
	}
	if lower > 0 || deleted {
		j := b.Job()
		if lower > 0 {
			j.Spec.Parallelism = &lower
		}
		if deleted {
			now := metav1.NewTime(b.Clock().Now())
			j.DeletionTimestamp = &now
			j.Finalizers = append(j.Finalizers, metav1.FinalizerDeleteDependents)
		}
		if err := b.SetJob(j); err != nil {
			t.Fatal(err)
		}
	}
	before := b.Job()
	var pods []corev1.Pod
	for _, p := range b.Pods() {
		pods = append(pods, *p)
	}
	r, err := indexstatus.Build(before, pods, indexstatus.Options{Clock: fixedClock(b.Clock().Now()), AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	claims := claimsOf(r, before)
	seen.add(claims)
	rq, err := b.SyncNow()
	if err != nil {
		t.Fatal(err)
	}
	got := synced{Created: slices.Clone(b.Created), Requeue: rq, Job: b.Job()}
	slices.Sort(got.Created)
	diffs = claims.check(before, got)
	if len(diffs) > 0 {
		diffs = append(diffs, "next: "+strings.Join(r.Next, " | "), fmt.Sprintf("the controller: created %v, deleted %v, requeue %s", got.Created, b.Deleted, got.Requeue))
	}
	return diffs, true
}

// TestStatusNextSyncRegressions replays every snapshot the property test found a
// disagreement on (testdata/nextsync-regressions.json): status must now agree.
func TestStatusNextSyncRegressions(t *testing.T) {
	b, err := os.ReadFile("testdata/nextsync-regressions.json")
	if err != nil {
		t.Fatal(err)
	}
	var ss []*Snapshot
	if err := json.Unmarshal(b, &ss); err != nil {
		t.Fatalf("testdata/nextsync-regressions.json: %v", err)
	}
	for _, s := range ss {
		t.Run(s.Name, func(t *testing.T) {
			at, err := time.ParseDuration(s.At)
			if err != nil {
				t.Fatal(err)
			}
			var seen claimCounts
			diffs, ok := snapshotAt(t, &s.Case, at, s.LowerParallelism, s.Deleted, &seen)
			if !ok {
				t.Fatalf("the Job finished before %s", at)
			}
			if len(diffs) > 0 {
				t.Errorf("status disagrees with the controller's next sync (%s):\n  %s", s.Why, strings.Join(diffs, "\n  "))
			}
		})
	}
}

// TestStatusNextSyncAgreesWithController: -oracle.snapshots random Indexed Jobs from
// -oracle.seed, each played by the controller to a random moment before it ends; there status
// reads the Job and its pods, and its statements about the next sync must match what one
// syncJob then does (conditions added, indexes created or not, the requeue).
func TestStatusNextSyncAgreesWithController(t *testing.T) {
	r := rand.New(rand.NewPCG(*seed, 0x5a9))
	start := time.Now()
	bad, played := 0, 0
	var seen claimCounts
	for k := 0; k < *snapshots; k++ {
		c := random(r, fmt.Sprintf("seed%d-snapshot%d", *seed, k))
		ctl, err := c.controller()
		if err != nil {
			t.Fatal(err)
		}
		end := ctl.End
		if !ctl.Finished || end <= 0 {
			end = 10 * time.Minute
		}
		at := time.Duration(r.Int64N(int64(end/(100*time.Millisecond))+1)) * 100 * time.Millisecond
		// A third of the snapshots lower the parallelism first, as a user scaling a running
		// Job down does: retries then wait behind lower indexes for the slots left.
		var lower int32
		if par := *c.Spec.Parallelism; par > 1 && r.IntN(3) == 0 {
			lower = 1 + r.Int32N(par-1)
		}
		// One in ten is being deleted in the foreground: no pod may be created.
		deleted := r.IntN(10) == 0
		diffs, ok := snapshotAt(t, c, at, lower, deleted, &seen)
		if !ok {
			continue
		}
		played++
		if len(diffs) == 0 {
			continue
		}
		bad++
		if bad <= 5 {
			js, _ := json.Marshal(Snapshot{Case: *c, At: at.String(), LowerParallelism: lower, Deleted: deleted})
			t.Errorf("%s at %s: status disagrees with the controller's next sync:\n  %s\nsnapshot (keep it in testdata/nextsync-regressions.json): %s",
				c.Name, at, strings.Join(diffs, "\n  "), js)
		}
	}
	t.Logf("%d random snapshots (seed %d, %d before the end) in %s: %d disagreements; claims checked: %+v", *snapshots, *seed, played, time.Since(start).Round(time.Millisecond), bad, seen)
}

// claimCounts says how many snapshots made each kind of claim (that the test checks something).
type claimCounts struct {
	Finishes, Running, NotNow, DueNow, Requeue, WaitsForSlot, BeingDeleted int
}

func (n *claimCounts) add(c nextSyncClaims) {
	switch {
	case c.finishes != nil:
		n.Finishes++
	case c.running:
		n.Running++
	}
	if len(c.notNow) > 0 {
		n.NotNow++
	}
	if len(c.dueNow) > 0 {
		n.DueNow++
	}
	if c.waits > 0 {
		n.WaitsForSlot++
	}
	if c.deleting {
		n.BeingDeleted++
	}
	if c.perIndex && c.firstDue > 0 && !c.hasDeadline {
		n.Requeue++
	}
}
