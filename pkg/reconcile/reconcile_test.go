package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// manifest: 3 shards of 2 cases.
func manifest(t *testing.T) *shards.Manifest {
	t.Helper()
	return manifestFor(t)
}

func manifestFor(t testing.TB) *shards.Manifest {
	t.Helper()
	m := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "demo"}, Revision: "1",
		Shards: []shards.Shard{{ID: "s0", Cases: []string{"a", "b"}}, {ID: "s1", Cases: []string{"c", "d"}}, {ID: "s2", Cases: []string{"e", "f"}}}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// hashes caches the hashes of large manifests, which tests do not change: a test of 10,000
// shards makes 10,000 receipts. Small ones are hashed each time (some tests edit them).
var hashes = map[*shards.Manifest]string{}

func hashOf(m *shards.Manifest) string {
	if len(m.Shards) < 1000 {
		return m.Hash()
	}
	if h, ok := hashes[m]; ok {
		return h
	}
	hashes[m] = m.Hash()
	return hashes[m]
}

// rcpt is a receipt for shard i of m by attempt id finishing at t0+min minutes; entries are
// "case" (passed), "case:model" or "case:infra".
func rcpt(m *shards.Manifest, i int, id string, minutes int, entries ...string) *receipt.Receipt {
	fin := t0.Add(time.Duration(minutes) * time.Minute)
	r := &receipt.Receipt{APIVersion: receipt.APIVersion, Kind: receipt.Kind, Attempt: receipt.Attempt{
		Manifest: contract.ManifestRef{Name: m.Metadata.Name, Revision: string(m.Revision), Hash: hashOf(m)},
		ShardID:  m.Shards[i].ID, CompletionIndex: i, Job: contract.JobRef{Name: "demo"}, AttemptID: id,
		Assigned: receipt.Assigned{Count: len(m.Shards[i].Cases), Digest: receipt.CasesDigest(m.Shards[i].Cases)}},
		Completed: []receipt.Result{}, Failed: []receipt.Failure{}, FinishedAt: &fin,
		Outputs: []string{"s3://b/" + id}}
	for _, e := range entries {
		c, class, _ := strings.Cut(e, ":")
		switch class {
		case "":
			r.Completed = append(r.Completed, receipt.Result{Case: c})
		case "model":
			r.Failed = append(r.Failed, receipt.Failure{Case: c, Class: receipt.ClassModel, Reason: "wrong answer"})
		case "infra":
			r.Failed = append(r.Failed, receipt.Failure{Case: c, Class: receipt.ClassInfrastructure, Reason: "timeout"})
		}
	}
	return r
}

func newR(t *testing.T, m *shards.Manifest) *Reconciler {
	t.Helper()
	r, err := New(Options{Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompleteRun(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("0.json", rcpt(m, 0, "p0", 1, "a", "b"))
	r.AddReceipt("1.json", rcpt(m, 1, "p1", 1, "c", "d:model"))
	r.AddReceipt("2.json", rcpt(m, 2, "p2", 1, "e", "f"))
	rep := r.Report()
	if !rep.Complete || rep.Coverage.Evaluated != 6 || rep.Coverage.Results != 6 || rep.Coverage.ModelFailures != 1 || rep.Coverage.Text != "6/6 (100%)" {
		t.Fatalf("coverage %+v complete %v", rep.Coverage, rep.Complete)
	}
	if rep.Shards[0].State != StateComplete || rep.Shards[1].State != StateFailed || rep.Coverage.ShardsEvaluated != 3 {
		t.Fatalf("states %s %s", rep.Shards[0].State, rep.Shards[1].State)
	}
	if !strings.HasPrefix(rep.Verdict, "complete") {
		t.Errorf("verdict %q", rep.Verdict)
	}
}

func TestMissingShardStaysInTheDenominator(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("0.json", rcpt(m, 0, "p0", 1, "a", "b"))
	r.AddReceipt("1.json", rcpt(m, 1, "p1", 1, "c", "d"))
	rep := r.Report()
	s := rep.Shards[2]
	if rep.Complete || s.State != StateMissing || s.Missing != 2 || s.Evaluated != 0 {
		t.Fatalf("shard 2: %+v", s)
	}
	if c := rep.Coverage; c.Results != 6 || c.Evaluated != 4 || c.Missing != 2 || c.Text != "4/6 (66.7%)" || c.ShardsEvaluated != 2 || c.Shards != 3 {
		t.Fatalf("coverage %+v", c)
	}
}

func TestDuplicatesFromTwoAttempts(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	// Attempt p-old evaluated a (passed) and b (passed); the retry p-new, finishing later,
	// evaluated a again (model failure) and hit an infrastructure failure on b.
	r.AddReceipt("new.json", rcpt(m, 0, "p-new", 10, "a:model", "b:infra"))
	r.AddReceipt("old.json", rcpt(m, 0, "p-old", 5, "a", "b"))
	s := r.Report().Shards[0]
	if s.Duplicates != 2 || s.Evaluated != 2 || s.Infrastructure != 0 {
		t.Fatalf("shard: %+v", s)
	}
	// a: both evaluated, the later attempt wins; b: evaluated beats infrastructure.
	if len(s.Conflicts) != 1 || s.Conflicts[0] != (Conflict{CaseRef: CaseRef{Case: "a"}, KeptAttempt: "p-new", KeptOutcome: "model-failure", OtherAttempt: "p-old", OtherOutcome: "passed"}) {
		t.Fatalf("conflicts %+v", s.Conflicts)
	}
	if s.State != StateFailed || s.ModelFailures != 1 || s.Passed != 1 {
		t.Fatalf("state %s passed %d model %d", s.State, s.Passed, s.ModelFailures)
	}
	kept := map[string]int{}
	for _, a := range s.Attempts {
		kept[a.AttemptID] = a.Kept
	}
	if kept["p-new"] != 1 || kept["p-old"] != 1 {
		t.Errorf("kept %v", kept)
	}
	// The order receipts are read in does not change the result.
	r2 := newR(t, m)
	r2.AddReceipt("old.json", rcpt(m, 0, "p-old", 5, "a", "b"))
	r2.AddReceipt("new.json", rcpt(m, 0, "p-new", 10, "a:model", "b:infra"))
	s2 := r2.Report().Shards[0]
	if s2.Passed != s.Passed || s2.ModelFailures != s.ModelFailures || s2.Duplicates != 2 || s2.Conflicts[0].KeptAttempt != "p-new" {
		t.Fatalf("order changed the outcome: %+v", s2)
	}
	// Equal finish times: the greater attempt ID wins.
	r3 := newR(t, m)
	r3.AddReceipt("x.json", rcpt(m, 0, "p-b", 5, "a:model", "b"))
	r3.AddReceipt("y.json", rcpt(m, 0, "p-a", 5, "a", "b"))
	if c := r3.Report().Shards[0].Conflicts; len(c) != 1 || c[0].KeptAttempt != "p-b" {
		t.Fatalf("tie: %+v", c)
	}
}

func rejection(t *testing.T, rep *Report, reason string) Rejection {
	t.Helper()
	if len(rep.Rejected) != 1 || rep.Rejected[0].Reason != reason {
		t.Fatalf("want one %s rejection, got %+v", reason, rep.Rejected)
	}
	return rep.Rejected[0]
}

func TestRevisionMismatchIsRejectedNotMerged(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	old := rcpt(m, 0, "p0", 1, "a", "b")
	old.Manifest.Revision, old.Manifest.Hash = "0", ""
	r.AddReceipt("old.json", old)
	rep := r.Report()
	rj := rejection(t, rep, RejectManifest)
	if rj.Source != "old.json" || rj.ShardID != "s0" || !strings.Contains(rj.Message, `revision "0"`) {
		t.Errorf("rejection %+v", rj)
	}
	if s := rep.Shards[0]; s.State != StateRejected || s.Evaluated != 0 || s.Missing != 2 || s.Rejected != 1 {
		t.Fatalf("shard: %+v", s)
	}
	// Another hash, same revision: the manifest changed.
	r = newR(t, m)
	h := rcpt(m, 0, "p0", 1, "a", "b")
	h.Manifest.Hash = "sha256:" + strings.Repeat("1", 64)
	r.AddReceipt("h.json", h)
	if rj := rejection(t, r.Report(), RejectManifest); !strings.Contains(rj.Message, "the manifest changed") {
		t.Errorf("%+v", rj)
	}
}

func TestUnassignedCaseRejectsTheWholeReceipt(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("x.json", rcpt(m, 0, "p0", 1, "a", "b", "c"))
	rep := r.Report()
	rj := rejection(t, rep, RejectUnassignedCase)
	if !strings.Contains(rj.Message, `"c"`) || !strings.Contains(rj.Message, `shard "s0" was not assigned`) {
		t.Errorf("message %q", rj.Message)
	}
	if rep.Shards[0].Evaluated != 0 {
		t.Fatalf("results of a rejected receipt were merged: %+v", rep.Shards[0])
	}
	// A repetition beyond --repetitions is not assigned either.
	r = newR(t, m)
	x := rcpt(m, 0, "p0", 1, "a", "b")
	x.Completed[0].Repetition = 1
	r.AddReceipt("rep.json", x)
	if rj := rejection(t, r.Report(), RejectUnassignedCase); !strings.Contains(rj.Message, "repetition 1") {
		t.Errorf("%+v", rj)
	}
}

func TestEmptyShardIsPartialWithEveryCaseNamed(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("x.json", rcpt(m, 0, "p0", 1))
	s := r.Report().Shards[0]
	if s.State != StatePartial || s.Evaluated != 0 || s.Missing != 2 || !s.MissingNamed ||
		len(s.MissingCases) != 2 || s.MissingCases[0].Case != "a" || s.MissingCases[1].Case != "b" {
		t.Fatalf("shard: %+v", s)
	}
}

func TestPartialNamesTheMissingCase(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("x.json", rcpt(m, 2, "p2", 1, "e"))
	s := r.Report().Shards[2]
	if s.State != StatePartial || len(s.MissingCases) != 1 || s.MissingCases[0].Case != "f" || !strings.Contains(s.Detail, "1 missing: f") {
		t.Fatalf("shard: %+v", s)
	}
}

func TestNotEvaluated(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("x.json", rcpt(m, 1, "p1", 1, "c:infra", "d:infra"))
	s := r.Report().Shards[1]
	if s.State != StateNotEvaluated || s.Infrastructure != 2 || len(s.NotEvaluatedCases) != 2 || s.Reasons[0] != (ReasonCount{Reason: "timeout", Count: 2}) {
		t.Fatalf("shard: %+v", s)
	}
}

func TestUnknownShard(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	x := rcpt(m, 0, "p0", 1, "a", "b")
	x.ShardID = "s9"
	r.AddReceipt("x.json", x)
	rep := r.Report()
	if rj := rejection(t, rep, RejectUnknownShard); rj.ShardID != "s9" || !strings.Contains(rj.Message, `shard "s9"`) {
		t.Errorf("%+v", rj)
	}
	if rep.Coverage.Evaluated != 0 || rep.Coverage.Results != 6 {
		t.Errorf("coverage %+v", rep.Coverage)
	}
}

func TestAssignmentMismatch(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	x := rcpt(m, 0, "p0", 1, "a")
	x.Assigned = receipt.Assigned{Count: 1, Digest: receipt.CasesDigest([]string{"a"})}
	r.AddReceipt("x.json", x)
	rejection(t, r.Report(), RejectAssignment)
}

func TestCandidateMismatch(t *testing.T) {
	m := manifest(t)
	r, err := New(Options{Manifest: m, Candidate: "model-a"})
	if err != nil {
		t.Fatal(err)
	}
	x := rcpt(m, 0, "p0", 1, "a", "b")
	x.Candidate = "model-b"
	r.AddReceipt("x.json", x)
	rejection(t, r.Report(), RejectCandidate)
	// A receipt that names no candidate is for the manifest's candidate label.
	m.Metadata.Labels = map[string]string{ManifestCandidateLabel: "model-a"}
	r, _ = New(Options{Manifest: m, Candidate: "model-a"})
	r.AddReceipt("y.json", rcpt(m, 0, "p0", 1, "a", "b"))
	if rep := r.Report(); len(rep.Rejected) != 0 || rep.Candidate != "model-a" || rep.Shards[0].State != StateComplete {
		t.Fatalf("%+v %+v", rep.Rejected, rep.Shards[0])
	}
	r, _ = New(Options{Manifest: m, Candidate: "model-b"})
	r.AddReceipt("y.json", rcpt(m, 0, "p0", 1, "a", "b"))
	rejection(t, r.Report(), RejectCandidate)
}

// TestCandidatesWithoutFilter: without --candidate, the report takes the one candidate the
// receipts name, and notes every candidate, quoted and sorted, when they name several.
func TestCandidatesWithoutFilter(t *testing.T) {
	m := manifest(t)
	x, y := rcpt(m, 0, "p0", 1, "a", "b"), rcpt(m, 1, "p1", 1, "c")
	x.Candidate, y.Candidate = "model-b", `model "a"`
	r := newR(t, m)
	r.AddReceipt("x.json", x)
	if rep := r.Report(); rep.Candidate != "model-b" || len(rep.Notes) != 0 {
		t.Fatalf("one candidate: %q %q", rep.Candidate, rep.Notes)
	}
	r.AddReceipt("y.json", y)
	rep := r.Report()
	want := `The accepted receipts name 2 candidates ("model \"a\"", "model-b"): their results are different results; give --candidate to check one.`
	if rep.Candidate != "" || len(rep.Notes) == 0 || rep.Notes[0] != want {
		t.Fatalf("two candidates: %q %q", rep.Candidate, rep.Notes)
	}
}

func TestMalformedAndTruncatedAreNamed(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	_, errTrunc := receipt.Parse("cut.json", []byte(`{"apiVersion":"indexed.kubectl.io/v1alpha1","kind":"ShardReceipt","shardID":"s0`))
	_, errBad := receipt.Parse("bad.json", []byte(`{"apiVersion":"indexed.kubectl.io/v1alpha1","kind":"ShardReceipt","nope":1}`))
	r.Reject("cut.json", "", errTrunc)
	r.Reject("bad.json", "", errBad)
	r.Reject("io.json", "", errors.New("permission denied"))
	rep := r.Report()
	if len(rep.Rejected) != 3 || rep.Rejected[0].Reason != RejectTruncated || rep.Rejected[1].Reason != RejectMalformed ||
		!strings.Contains(rep.Rejected[1].Message, "nope") || rep.Rejected[2].Message != "permission denied" {
		t.Fatalf("rejected %+v", rep.Rejected)
	}
}

func summary(m *shards.Manifest, i int, id string, minutes, completed, model, infra int) *receipt.Summary {
	s := receipt.Summarize(rcpt(m, i, id, minutes))
	s.Completed, s.Failed.Model, s.Failed.Infrastructure = completed, model, infra
	if infra > 0 {
		s.Reason = "invalid input"
	}
	return s
}

func TestSummaries(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddSummary("pod/a", summary(m, 0, "a", 1, 2, 0, 0), "s0")
	r.AddSummary("pod/b", summary(m, 1, "b", 1, 0, 0, 2), "s1")
	r.AddSummary("pod/c1", summary(m, 2, "c1", 1, 0, 0, 0), "s2")
	r.AddSummary("pod/c2", summary(m, 2, "c2", 2, 1, 0, 0), "s2")
	rep := r.Report()
	if s := rep.Shards[0]; s.State != StateComplete || s.Source != "summary" {
		t.Errorf("s0 %+v", s)
	}
	if s := rep.Shards[1]; s.State != StateNotEvaluated || s.Reasons[0].Reason != "invalid input" {
		t.Errorf("s1 %+v", s)
	}
	s := rep.Shards[2]
	if s.State != StatePartial || s.Evaluated != 1 || s.Missing != 1 || s.MissingNamed || !strings.Contains(s.Detail, "not named") {
		t.Errorf("s2 %+v", s)
	}
	used := ""
	for _, a := range s.Attempts {
		if a.Used {
			used += a.AttemptID
		}
	}
	if used != "c2" {
		t.Errorf("used %q", used)
	}
	// A pod that ran s0 but whose summary is for s1.
	r = newR(t, m)
	r.AddSummary("pod/x", summary(m, 1, "x", 1, 2, 0, 0), "s0")
	rejection(t, r.Report(), RejectWrongShard)
	// More results than the shard has.
	r = newR(t, m)
	r.AddSummary("pod/y", summary(m, 1, "y", 1, 3, 0, 0), "s1")
	rejection(t, r.Report(), RejectUnassignedCase)
}

func TestReceiptsWinOverSummaries(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddSummary("pod/p2", summary(m, 2, "p2", 1, 2, 0, 0), "s2")
	r.AddReceipt("p2.json", rcpt(m, 2, "p2", 1, "e"))
	rep := r.Report()
	s := rep.Shards[2]
	if s.Source != "receipts" || s.State != StatePartial || s.MissingCases[0].Case != "f" {
		t.Fatalf("shard %+v", s)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "its summary (pod/p2) reports 2 results, its receipt (p2.json) 1") {
		t.Errorf("notes %q", rep.Notes)
	}
}

func TestPercentNeverRoundsUpTo100(t *testing.T) {
	if got := percent(999999, 1000000); got != "99.9%" {
		t.Fatal(got)
	}
}

func TestPrintText(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("0.json", rcpt(m, 0, "p0", 1, "a", "b"))
	r.AddReceipt("2.json", rcpt(m, 2, "p2", 1, "e"))
	bad := rcpt(m, 1, "p1", 1, "c", "d")
	bad.Manifest.Revision = "0"
	r.AddReceipt("1.json", bad)
	var b strings.Builder
	if err := PrintText(&b, r.Report()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"3/6 (50.0%)", "1/3 evaluated", "- rejected, 1 shard: manifest-mismatch", "    shard s1\n",
		"- partial, 1 shard: results missing\n", "    shard s2\n", "Shard s2: 1 missing: f"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := PrintWide(&b, r.Report()); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{"s1     rejected", "Shard s2: 1 missing: f", "1.json shard s1: manifest-mismatch"} {
		if !strings.Contains(out, want) {
			t.Errorf("wide lacks %q:\n%s", want, out)
		}
	}
}

// TestPrintTextCutsLongRetryIndexes: a retry's index map may hold hundreds of KiB of interval
// text; the text view keeps its Retry row within 80 columns and counts the indexes, while the
// report (what -o json and -o yaml print) keeps every index.
func TestPrintTextCutsLongRetryIndexes(t *testing.T) {
	m := manifest(t)
	rep := newR(t, m).Report()
	var b indexes.Builder
	for i := 0; i < 100000; i += 2 { // every other root index: 50000 intervals, no run to merge
		b.Add(i)
	}
	long := b.Set()
	rep.Jobs = []LineageJob{
		{JobRef: contract.JobRef{Name: "eval"}},
		{JobRef: contract.JobRef{Name: "eval-r1"}, RetryAttempt: 1, OriginalIndexes: indexes.Of(1, 3).Union(indexes.Range(10, 19))},
		{JobRef: contract.JobRef{Name: "eval-r2"}, RetryAttempt: 2, OriginalIndexes: long},
	}
	rep.Candidate = "model-7" // the widest key column
	var out strings.Builder
	if err := PrintText(&out, rep); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "Retry:") {
			rows = append(rows, l)
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%d columns: %s", n, l)
			}
		}
	}
	want := []string{
		"Retry:     eval-r1 (attempt 1, root indexes 1,3,10-19)",
		"Retry:     eval-r2 (attempt 2, root indexes 0,2,4,6,8,10,12,... (50000 indexes))",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("Retry rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	// A name too long to leave room keeps the first interval, counted whole when it is the only one.
	if got := retryLine(strings.Repeat("n", 60), 1, long); !strings.HasSuffix(got, "root indexes 0,... (50000 indexes))") {
		t.Errorf("long name: %s", got)
	}
	if got := retryLine(strings.Repeat("n", 60), 1, indexes.Range(100000, 199999)); !strings.HasSuffix(got, "root indexes 100000-199999 (100000 indexes))") {
		t.Errorf("one long interval: %s", got)
	}
	if !rep.Jobs[2].OriginalIndexes.Equal(long) {
		t.Error("printing changed the report")
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"originalIndexes":"`+long.String()+`"`) {
		t.Error("the JSON report lacks the whole index string")
	}
}

// TestRepetitionsAreBounded: repetitions above MaxRepetitions, or cases × repetitions above
// MaxResults, are refused by New before anything is allocated; at the bound every count of the
// report is exact (no overflow: a huge --repetitions used to wrap cases × repetitions around to
// a negative number of results, or panic in makeslice).
func TestRepetitionsAreBounded(t *testing.T) {
	m := manifest(t) // 6 cases
	for _, reps := range []int{MaxRepetitions + 1, 1 << 62, int(^uint(0) >> 1)} {
		if _, err := New(Options{Manifest: m, Repetitions: reps}); err == nil || !strings.Contains(err.Error(), "at most 10000") {
			t.Errorf("repetitions %d: err %v, want at most %d", reps, err, MaxRepetitions)
		}
	}
	// MaxResults/MaxRepetitions cases fit exactly; one more case does not.
	big := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "big"}, Revision: "1"}
	var cases []string
	for k := range MaxResults / MaxRepetitions {
		cases = append(cases, fmt.Sprintf("c%05d", k))
	}
	big.Shards = []shards.Shard{{ID: "s0", Cases: cases[:1000]}, {ID: "s1", Cases: cases[1000:]}}
	r, err := New(Options{Manifest: big, Repetitions: MaxRepetitions})
	if err != nil {
		t.Fatal(err)
	}
	cov := r.Report().Coverage
	if cov.Results != MaxResults || cov.Missing != MaxResults || cov.Text != "0/20000000 (0.0%)" {
		t.Errorf("coverage at the bound: %+v", cov)
	}
	big.Shards[1].Cases = append(big.Shards[1].Cases, "one-more")
	_, err = New(Options{Manifest: big, Repetitions: MaxRepetitions})
	if !errors.Is(err, ErrTooManyResults) || !strings.Contains(err.Error(), "2001 cases × 10000 repetitions are 20010000 results, at most 20000000") {
		t.Errorf("one case over: %v", err)
	}
}

// TestSummaryCountsCannotWrapAround: a summary is any JSON; counts that add up past the int
// range used to wrap around to a small sum, pass the "more results than the shard has" check
// and be reported as results.
func TestSummaryCountsCannotWrapAround(t *testing.T) {
	m := manifest(t)
	const maxInt = int(^uint(0) >> 1)
	for _, c := range [][3]int{{maxInt, maxInt, 2}, {maxInt, 1, 0}, {0, 0, maxInt}} {
		r := newR(t, m)
		r.AddSummary("pod/w", summary(m, 0, "w", 1, c[0], c[1], c[2]), "s0")
		rep := r.Report()
		rj := rejection(t, rep, RejectUnassignedCase)
		if !strings.Contains(rj.Message, "shard \"s0\" has 2 (2 cases × 1 repetition)") {
			t.Errorf("%v: %s", c, rj.Message)
		}
		if s := rep.Shards[0]; s.State != StateRejected || s.Passed != 0 || s.Missing != 2 {
			t.Errorf("%v: shard %+v", c, s)
		}
	}
}

// A count of one meets a noun of one: a shard of one case says "its 1 result counts as
// missing", a receipt that was assigned one case "assigned 1 case".
func TestWordsForOne(t *testing.T) {
	m := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "demo"}, Revision: "1",
		Shards: []shards.Shard{{ID: "s0", Cases: []string{"a"}}, {ID: "s1", Cases: []string{"c", "d"}}}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	r := newR(t, m)
	x := rcpt(m, 1, "p1", 1, "c")
	x.Assigned = receipt.Assigned{Count: 1, Digest: receipt.CasesDigest([]string{"c"})}
	r.AddReceipt("x.json", x)
	rep := r.Report()
	if d := rep.Shards[0].Detail; d != "no receipt and no summary: its 1 result counts as missing" {
		t.Errorf("shard 0: %q", d)
	}
	if msg := rejection(t, rep, RejectAssignment).Message; !strings.Contains(msg, "assigned 1 case with digest") || !strings.Contains(msg, "has 2 cases with digest") {
		t.Errorf("rejection %q", msg)
	}
}
