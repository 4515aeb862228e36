package indexstatus

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

func entryOf(r *IndexedJobStatus, kind EntryKind) *Entry {
	for i := range r.NextEntries {
		if r.NextEntries[i].Kind == kind {
			return &r.NextEntries[i]
		}
	}
	return nil
}

// A finished Job with failed indexes names the commands that act on them, from the captured
// fixtures: the logs of the failed indexes, the retry (of any Indexed Job; worded for a Job
// made by create, as the shards-configmap annotation says), lint for the prepare-db mode.
func TestFinishedJobNextCommands(t *testing.T) {
	seed := loadFixture(t, "seed")
	logs := entryOf(seed.r, EntryShowLogs)
	if logs == nil || logs.Command != "kubectl indexed logs seed -n seed --failed" || logs.Indexes.String() != "2,4" {
		t.Fatalf("seed ShowLogs = %+v", logs)
	}
	// seed was created with kubectl create, not kubectl indexed create: retry runs any
	// Indexed Job (a Job per index, each seeing its original index).
	// Index 2 was failed by the Job's own FailIndex rule (exit 42, invalid input): not offered
	// for a plain re-run (issue 35 item 9), only named deliberately with the others; index 4
	// used up its backoffLimitPerIndex: offered, by the command without --indexes (retry leaves
	// 2 out by the same rule).
	if e := entryOf(seed.r, EntryRetryShards); e == nil || e.Command != "kubectl indexed retry seed -n seed" || e.Indexes.String() != "4" || !strings.Contains(e.Text, "Jobs of their own") ||
		!strings.Contains(e.Text, "used up their retries (4)") {
		t.Errorf("seed RetryShards = %+v", e)
	}
	if e := entryOf(seed.r, EntryFailedByPolicy); e == nil || e.Command != "kubectl indexed retry seed -n seed --indexes 2,4" || e.Indexes.String() != "2" ||
		!strings.Contains(e.Text, "rule 0 (FailIndex: exit code 42 in container worker)") || !strings.Contains(e.Text, "After fixing its input") {
		t.Errorf("seed FailedByPolicy = %+v", e)
	}
	if final, rules := seed.r.FailedByPolicy(); final.String() != "2" || rules != "rule 0 (FailIndex: exit code 42 in container worker)" {
		t.Errorf("FailedByPolicy() = %s, %q", final, rules)
	}
	// With manualSelector its retries would select each other's pods: retry refuses it, so
	// no command is offered.
	ms := loadJob(t, "seed")
	ms.Spec.ManualSelector = new(true)
	r, err := Build(ms, loadPods(t, "seed"), Options{Clock: fixedClock(seed.r.ObservedAt)})
	if err != nil {
		t.Fatal(err)
	}
	if e := entryOf(r, EntryRetryShards); e == nil || e.Command != "" || !strings.Contains(e.Text, "manualSelector") {
		t.Errorf("manualSelector RetryShards = %+v", e)
	}
	if entryOf(seed.r, EntryLintPolicy) != nil {
		t.Errorf("seed has backoffLimitPerIndex: no prepare-db lint entry")
	}
	// The same Job as if made by kubectl indexed create: the retry command.
	job := loadJob(t, "seed")
	job.Annotations = map[string]string{"indexed.kubectl.io/shards-configmap": "seed-shards"}
	r, err = Build(job, loadPods(t, "seed"), Options{Clock: fixedClock(seed.r.ObservedAt)})
	if err != nil {
		t.Fatal(err)
	}
	if e := entryOf(r, EntryRetryShards); e == nil || e.Command != "kubectl indexed retry seed -n seed" || e.Indexes.String() != "4" || !strings.Contains(e.Text, "as a new Job") {
		t.Errorf("RetryShards = %+v", e)
	}

	// prepare-db: killed indexes have no result (Unfinished): retry every missing shard, the
	// logs of the three whose attempt failed, and lint for the shared backoffLimit.
	pdb := loadFixture(t, "prepare-db-failed")
	if e := entryOf(pdb.r, EntryShowLogs); e == nil || e.Indexes.String() != "1,4,7" {
		t.Errorf("prepare-db ShowLogs = %+v", e)
	}
	if e := entryOf(pdb.r, EntryLintPolicy); e == nil || e.Command != "kubectl get job prepare-db -n prepare-db-failed -o yaml | kubectl indexed lint -f -" {
		t.Errorf("prepare-db LintPolicy = %+v", e)
	}
	job = loadJob(t, "prepare-db-failed")
	job.Annotations = map[string]string{"indexed.kubectl.io/shards-configmap": "x"}
	r, err = Build(job, loadPods(t, "prepare-db-failed"), Options{Clock: fixedClock(pdb.r.ObservedAt)})
	if err != nil {
		t.Fatal(err)
	}
	if e := entryOf(r, EntryRetryShards); e == nil || e.Command != "kubectl indexed retry prepare-db -n prepare-db-failed --indexes missing" || e.Indexes.String() != "0-9" {
		t.Errorf("prepare-db RetryShards = %+v", e)
	}

	// Complete through the success policy: the missing indexes were not needed; no retry.
	sp := loadFixture(t, "success-policy-after-failed-index")
	if e := entryOf(sp.r, EntryRetryShards); e != nil {
		t.Errorf("success policy: %+v", e)
	}
	// A running Job gets none of these.
	if run := loadFixture(t, "running"); entryOf(run.r, EntryShowLogs) != nil || entryOf(run.r, EntryRetryShards) != nil {
		t.Errorf("running: %+v", run.r.NextEntries)
	}
}

// The text view names the pods of the failed indexes without -o wide.
func TestTextNamesFailedPods(t *testing.T) {
	f := loadFixture(t, "seed")
	var names []string
	for _, st := range f.r.Indexes {
		if st.Index == 4 {
			names = st.Pods
		}
	}
	if len(names) != 2 {
		t.Fatalf("index 4 pods = %v", names)
	}
	want := "\nPods of the first index of each group (oldest attempt first):\n  2: "
	if !strings.Contains(f.text, want) || !strings.Contains(f.text, "  4: "+names[0]+", "+names[1]+"\n") {
		t.Errorf("text:\n%s", f.text)
	}
	if strings.Contains(f.wide, "Pods of the first index") {
		t.Errorf("-o wide has a PODS column; no list")
	}
}

func loadJob(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	job, err := testutil.ReadJob(filepath.Join(fixturesDir, name, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func loadPods(t *testing.T, name string) []corev1.Pod {
	t.Helper()
	pods, err := source.ReadPods(filepath.Join(fixturesDir, name, "pods.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

// The text view fits 80 columns (issue 14): every line of the seed and prepare-db reports, and
// in every captured fixture every line but a command too long to break (a long namespace).
func TestTextFitsEightyColumns(t *testing.T) {
	for _, name := range fixtureNames(t) {
		f := loadFixture(t, name)
		for _, line := range strings.Split(f.text, "\n") {
			n := utf8.RuneCountInString(line)
			if n <= Width {
				continue
			}
			if (name == "seed" || name == "prepare-db-failed") || !strings.HasPrefix(line, "      kubectl ") {
				t.Errorf("%s: %d columns: %q", name, n, line)
			}
		}
	}
}

// A plain Job with more failed indexes than one retry of it runs: status offers the retry of
// the first batch, which retry accepts, not the whole set, which it refuses.
func TestPlainRetryBatch(t *testing.T) {
	seed := loadFixture(t, "seed")
	job := loadJob(t, "seed")
	job.Spec.Completions = new(int32(2500))
	job.Spec.Parallelism = new(int32(10))
	job.Status.FailedIndexes = new("2,4,10-1999")
	job.Status.CompletedIndexes = "0,1,3,5-9,2000-2499"
	job.Status.Succeeded, job.Status.Failed = 508, 1992
	r, err := Build(job, nil, Options{Clock: fixedClock(seed.r.ObservedAt)})
	if err != nil {
		t.Fatal(err)
	}
	e := entryOf(r, EntryRetryShards)
	if e == nil || e.Command != "kubectl indexed retry seed -n seed --indexes 2,4,10-1007" || e.Indexes.String() != "2,4,10-1007" || !strings.Contains(e.Text, "at most 1000 at a time") {
		t.Fatalf("RetryShards = %+v", e)
	}
	// Made by create: one Job at any size, the whole set.
	job.Annotations = map[string]string{"indexed.kubectl.io/shards-configmap": "seed-shards"}
	if r, err = Build(job, nil, Options{Clock: fixedClock(seed.r.ObservedAt)}); err != nil {
		t.Fatal(err)
	}
	if e := entryOf(r, EntryRetryShards); e == nil || e.Command != "kubectl indexed retry seed -n seed" || e.Indexes.String() != "2,4,10-1999" {
		t.Errorf("create'd RetryShards = %+v", e)
	}
}

// A failed Job whose retries re-ran some of its failed indexes (issue 26, item 5: four retries
// of the same shards piled up while status still advised re-running them): the advice names
// the retries, does not offer again what they succeeded or still run, and offers the rest.
func TestRetriedIndexesAreNotOfferedAgain(t *testing.T) {
	seed := loadFixture(t, "seed")
	build := func(retries ...RetryJob) *IndexedJobStatus {
		t.Helper()
		// Without its podFailurePolicy: index 2's exit 42 is then a failure like 4's, which a
		// plain re-run is offered for (TestFinishedJobNextCommands has the rule).
		job := loadJob(t, "seed")
		job.Spec.PodFailurePolicy = nil
		r, err := Build(job, loadPods(t, "seed"), Options{Clock: fixedClock(seed.r.ObservedAt), Retries: retries})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// seed-r1-4 succeeded index 4, seed-r1-2 failed index 2 again: 2 is offered again.
	r := build(RetryJob{Name: "seed-r1-2", Attempt: 1, Indexes: indexes.Of(2), Failed: indexes.Of(2), Finished: true},
		RetryJob{Name: "seed-r1-4", Attempt: 1, Indexes: indexes.Of(4), Succeeded: indexes.Of(4), Finished: true})
	e := entryOf(r, EntryRetried)
	if e == nil || e.Indexes.String() != "2,4" || e.Command != "kubectl indexed status seed -n seed --lineage" ||
		!strings.Contains(e.Text, "seed-r1-2 (attempt 1: 2 failed)") || !strings.Contains(e.Text, "seed-r1-4 (attempt 1: 4 succeeded)") {
		t.Errorf("Retried = %+v", e)
	}
	if e := entryOf(r, EntryRetryShards); e == nil || e.Command != "kubectl indexed retry seed -n seed --indexes 2" || e.Indexes.String() != "2" {
		t.Errorf("RetryShards = %+v", e)
	}
	if len(r.Retries) != 2 {
		t.Errorf("report retries %+v", r.Retries)
	}
	// A retry still running both: nothing to re-run now.
	r = build(RetryJob{Name: "seed-r1", Attempt: 1, Indexes: indexes.Of(2, 4)})
	if e := entryOf(r, EntryRetried); e == nil || !strings.Contains(e.Text, "seed-r1 (attempt 1: 2,4 running)") {
		t.Errorf("Retried = %+v", e)
	}
	if e := entryOf(r, EntryRetryShards); e != nil {
		t.Errorf("a retry is offered while one runs the same indexes: %+v", e)
	}
	// Retries of other indexes only: the advice is unchanged.
	r = build(RetryJob{Name: "seed-r1", Attempt: 1, Indexes: indexes.Of(0), Succeeded: indexes.Of(0), Finished: true})
	if entryOf(r, EntryRetried) != nil {
		t.Errorf("a retry of index 0 named for failed indexes 2,4")
	}
	if e := entryOf(r, EntryRetryShards); e == nil || e.Command != "kubectl indexed retry seed -n seed" {
		t.Errorf("RetryShards = %+v", e)
	}
}
