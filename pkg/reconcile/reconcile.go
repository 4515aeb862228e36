package reconcile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Options says what the receipts are checked against.
type Options struct {
	// Manifest is the shard manifest of the run (required).
	Manifest *shards.Manifest
	// Candidate, when set, is the only candidate accepted. A receipt that names none is for the
	// manifest's "candidate" label (none when it has no such label). When Candidate is empty,
	// see Reconciler.Candidates for the candidates the receipts name.
	Candidate string
	// Repetitions is how many times each case runs (repetitions 0..n-1); 0 means 1. At most
	// MaxRepetitions, and cases × repetitions at most MaxResults.
	Repetitions int
}

// Bounds on what a reconciliation holds. The Reconciler keeps one outcome byte and one attempt
// number (5 bytes) per result of a shard with an accepted receipt, and the report names every
// missing result (about 24 bytes each, before its text): results are cases × repetitions.
const (
	// MaxRepetitions bounds the repetitions per case.
	MaxRepetitions = 10000
	// MaxResults bounds cases × repetitions over the whole manifest: about 100 MB of state and
	// at most 480 MB of missing results named in the report. A manifest (at most
	// shards.MaxManifestBytes) cannot hold that many distinct cases, so one repetition always
	// fits; every count of the report (a sum of results) stays far below the int range.
	MaxResults = 20000000
)

// ErrTooManyResults is returned by New when cases × repetitions is more than MaxResults.
var ErrTooManyResults = errors.New("too many results")

// Outcomes of one result, in increasing strength for the duplicate rule's first key.
const (
	outNone uint8 = iota
	outInfrastructure
	outModel
	outPassed
)

func evaluated(o uint8) bool { return o == outModel || o == outPassed }

// outcomeName names an evaluated outcome, the two a conflict is between.
func outcomeName(o uint8) string {
	if o == outPassed {
		return "passed"
	}
	return "model-failure"
}

// maxConflicts and maxReasons bound what one shard lists (the counts stay exact).
const (
	maxConflicts = 100
	maxReasons   = 10
)

type attempt struct {
	id       string
	source   string
	kind     string // "receipt" or "summary"
	finished time.Time
	hasTime  bool
	results  int
	outputs  []string
	summary  *receipt.Summary
}

// later reports whether a finished after b under the duplicate rule's tie-breaks.
func (a *attempt) later(b *attempt) bool {
	if !a.finished.Equal(b.finished) {
		return a.finished.After(b.finished)
	}
	return a.id > b.id
}

type shardState struct {
	// outcome and from hold, per result (case position × repetitions + repetition), the kept
	// outcome and the attempt (index into attempts) it came from. Allocated on the first
	// accepted receipt.
	outcome    []uint8
	from       []int32
	reasons    map[int]string // infrastructure reason per result, only for kept infrastructure outcomes
	attempts   []attempt
	duplicates int
	conflicts  []Conflict
	nConflicts int
	rejected   int
	rejection  string // the first rejection's reason and message
}

// Reconciler folds receipts and summaries into per-shard state one at a time.
type Reconciler struct {
	opts       Options
	m          *shards.Manifest
	hash       string
	reps       int
	shardOf    map[string]int
	shards     []shardState
	rejected   []Rejection
	candidates map[string]int
	notes      []string
	jobs       []LineageJob
	digests    []string // per shard, computed on first use
	rereads    int      // receipts of an attempt already read (a second copy of a file)
	reread     string   // the first such pair
	noFiles    string   // set when the receipts directory held no receipt file
}

// New starts a reconciliation against opts.Manifest.
func New(opts Options) (*Reconciler, error) {
	if opts.Manifest == nil {
		return nil, errors.New("no manifest")
	}
	if opts.Repetitions < 0 {
		return nil, fmt.Errorf("repetitions %d is negative", opts.Repetitions)
	}
	if opts.Repetitions > MaxRepetitions {
		return nil, fmt.Errorf("repetitions %d: at most %d", opts.Repetitions, MaxRepetitions)
	}
	reps := max(opts.Repetitions, 1)
	m := opts.Manifest
	cases := m.NumCases()
	// cases × reps > MaxResults, without computing a product that could overflow.
	if cases > MaxResults/reps {
		return nil, fmt.Errorf("%w: the manifest's %d cases × %d repetitions are %d results, at most %d are reconciled (each is held in memory)",
			ErrTooManyResults, cases, reps, cases*reps, MaxResults)
	}
	r := &Reconciler{opts: opts, m: m, hash: m.Hash(), reps: reps, shardOf: make(map[string]int, len(m.Shards)),
		shards: make([]shardState, len(m.Shards)), candidates: map[string]int{}, digests: make([]string, len(m.Shards)),
		rejected: []Rejection{}} // the report lists none as [], not null
	for i, s := range m.Shards {
		r.shardOf[s.ID] = i
	}
	return r, nil
}

// Note adds a note to the report.
func (r *Reconciler) Note(format string, a ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, a...))
}

// AddJob records a Job whose pods were read (live).
func (r *Reconciler) AddJob(j LineageJob) { r.jobs = append(r.jobs, j) }

// Candidate is the only candidate accepted (Options.Candidate), "" for any.
func (r *Reconciler) Candidate() string { return r.opts.Candidate }

// Candidates returns the candidates the accepted receipts and summaries name, with counts.
func (r *Reconciler) Candidates() map[string]int { return r.candidates }

// Reject records a receipt or summary that could not be read. shardID may be "".
func (r *Reconciler) Reject(source, shardID string, err error) {
	reason := RejectMalformed
	var re *receipt.Error
	if errors.As(err, &re) && re.Truncated {
		reason = RejectTruncated
	}
	msg := err.Error()
	if re != nil {
		msg = strings.Join(re.Problems, "; ")
	}
	r.reject(Rejection{Source: source, ShardID: shardID, Reason: reason, Message: msg})
}

// NoReceiptFiles records that dir held no file matching pattern: the verdict says so, since
// every shard is then missing for that reason and not because its worker wrote nothing.
func (r *Reconciler) NoReceiptFiles(dir, pattern string) {
	r.noFiles = fmt.Sprintf("found 0 receipt files in %s (looked for %s)", dir, pattern)
}

// RejectData records a receipt file that could not be read, on the shard it names when its
// text still says which (a receipt with an unknown field or a bad value names its shardID):
// that shard is then rejected, not missing.
func (r *Reconciler) RejectData(source string, data []byte, err error) {
	r.Reject(source, shardIDIn(data), err)
}

// shardIDIn returns the top-level "shardID" string of a JSON object, read token by token so
// that a file with unknown fields, bad values or a truncated end still names its shard; ""
// when it names none before its text ends or goes wrong.
func shardIDIn(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key == "shardID" {
			v, err := dec.Token()
			if s, ok := v.(string); ok && err == nil {
				return s
			}
			return ""
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

func (r *Reconciler) reject(rj Rejection) {
	if i, ok := r.shardOf[rj.ShardID]; ok {
		st := &r.shards[i]
		if st.rejected == 0 {
			st.rejection = rj.Reason + ": " + rj.Message
		}
		st.rejected++
	}
	r.rejected = append(r.rejected, rj)
}

// ManifestCandidateLabel is the manifest label that names the candidate a run evaluates.
const ManifestCandidateLabel = "candidate"

// effective is a receipt's candidate: its own, else the manifest's candidate label (the
// manifest hash, which the receipt names, covers the labels).
func (r *Reconciler) effective(candidate string) string {
	return cmp.Or(candidate, r.m.Metadata.Labels[ManifestCandidateLabel])
}

func (r *Reconciler) digest(i int) string {
	if r.digests[i] == "" {
		r.digests[i] = receipt.CasesDigest(r.m.Shards[i].Cases)
	}
	return r.digests[i]
}

// checkHeader applies the rules a receipt and a summary share; it returns the shard's
// position, or false after recording the rejection.
func (r *Reconciler) checkHeader(source, attemptID string, mref contract.ManifestRef, candidate, shardID string, assigned receipt.Assigned) (int, bool) {
	rej := func(reason, format string, a ...any) (int, bool) {
		r.reject(Rejection{Source: source, ShardID: shardID, AttemptID: attemptID, Reason: reason, Message: fmt.Sprintf(format, a...)})
		return 0, false
	}
	m := r.m
	switch {
	case mref.Name != m.Metadata.Name:
		return rej(RejectManifest, "written for manifest %q, not %q", mref.Name, m.Metadata.Name)
	case mref.Revision != "" && mref.Revision != string(m.Revision):
		return rej(RejectManifest, "written for revision %q of manifest %q, not revision %q", mref.Revision, m.Metadata.Name, m.Revision)
	case mref.Hash != "" && mref.Hash != r.hash:
		return rej(RejectManifest, "written for manifest hash %s, not %s (the manifest changed)", mref.Hash, r.hash)
	}
	if r.opts.Candidate != "" && r.effective(candidate) != r.opts.Candidate {
		return rej(RejectCandidate, "for candidate %q, not %q", r.effective(candidate), r.opts.Candidate)
	}
	i, ok := r.shardOf[shardID]
	if !ok {
		return rej(RejectUnknownShard, "for shard %q, which manifest %q revision %s does not have", shardID, m.Metadata.Name, m.Revision)
	}
	if want := r.digest(i); assigned.Digest != want || assigned.Count != len(m.Shards[i].Cases) {
		return rej(RejectAssignment, "assigned %s with digest %s, but shard %q has %s with digest %s in the manifest", textwrap.Count(assigned.Count, "case", "cases"), assigned.Digest, shardID, textwrap.Count(len(m.Shards[i].Cases), "case", "cases"), want)
	}
	return i, true
}

// AddReceipt checks a full receipt against the manifest and, when it passes every rule, folds
// its results into the shard's state under the duplicate rule. A receipt that breaks a rule is
// rejected whole: none of its results is merged.
func (r *Reconciler) AddReceipt(source string, rc *receipt.Receipt) {
	i, ok := r.checkHeader(source, rc.AttemptID, rc.Manifest, rc.Candidate, rc.ShardID, rc.Assigned)
	if !ok {
		return
	}
	cases := r.m.Shards[i].Cases
	pos := make(map[string]int, len(cases))
	for k, c := range cases {
		pos[c] = k
	}
	var bad []string
	nBad := 0
	check := func(c string, rep int) {
		if _, ok := pos[c]; ok && rep < r.reps {
			return
		}
		nBad++
		if len(bad) < 5 {
			if rep >= r.reps {
				bad = append(bad, fmt.Sprintf("%q repetition %d (repetitions: %d)", c, rep, r.reps))
			} else {
				bad = append(bad, fmt.Sprintf("%q", c))
			}
		}
	}
	for _, res := range rc.Completed {
		check(res.Case, res.Repetition)
	}
	for _, f := range rc.Failed {
		check(f.Case, f.Repetition)
	}
	if nBad > 0 {
		more := ""
		if nBad > len(bad) {
			more = fmt.Sprintf(" and %d more", nBad-len(bad))
		}
		r.reject(Rejection{Source: source, ShardID: rc.ShardID, AttemptID: rc.AttemptID, Reason: RejectUnassignedCase,
			Message: fmt.Sprintf("reports %d %s shard %q was not assigned: %s%s", nBad, textwrap.Plural(nBad, "result", "results"), rc.ShardID, strings.Join(bad, ", "), more)})
		return
	}
	r.candidates[r.effective(rc.Candidate)]++
	st := &r.shards[i]
	if st.outcome == nil {
		n := len(cases) * r.reps
		st.outcome = make([]uint8, n)
		st.from = make([]int32, n)
	}
	a := attempt{id: rc.AttemptID, source: source, kind: "receipt", results: len(rc.Completed) + len(rc.Failed), outputs: rc.Outputs}
	if rc.FinishedAt != nil {
		a.finished, a.hasTime = rc.FinishedAt.UTC(), true
	}
	// The same attempt's receipt read again (a second copy of the file) is one attempt.
	ai := int32(slices.IndexFunc(st.attempts, func(b attempt) bool { return b.kind == "receipt" && b.id == a.id && a.id != "" }))
	if ai >= 0 {
		if r.rereads == 0 {
			r.reread = fmt.Sprintf("%s and %s (attempt %q of shard %q)", st.attempts[ai].source, source, a.id, rc.ShardID)
		}
		r.rereads++
	} else {
		st.attempts = append(st.attempts, a)
		ai = int32(len(st.attempts) - 1)
	}
	for _, res := range rc.Completed {
		r.fold(st, i, pos[res.Case]*r.reps+res.Repetition, outPassed, "", ai)
	}
	for _, f := range rc.Failed {
		o := outInfrastructure
		if f.Class == receipt.ClassModel {
			o = outModel
		}
		r.fold(st, i, pos[f.Case]*r.reps+f.Repetition, o, f.Reason, ai)
	}
}

// fold applies the duplicate rule to result k of shard i.
func (r *Reconciler) fold(st *shardState, i, k int, o uint8, reason string, ai int32) {
	cur := st.outcome[k]
	if cur != outNone && st.from[k] == ai {
		return // the same attempt's result, read again
	}
	if cur != outNone {
		st.duplicates++
		old, nw := &st.attempts[st.from[k]], &st.attempts[ai]
		win := evaluated(o) && !evaluated(cur) || evaluated(o) == evaluated(cur) && nw.later(old)
		if evaluated(o) && evaluated(cur) && o != cur {
			st.nConflicts++
			if len(st.conflicts) < maxConflicts {
				c := Conflict{CaseRef: CaseRef{Case: r.m.Shards[i].Cases[k/r.reps], Repetition: k % r.reps}}
				if win {
					c.KeptAttempt, c.KeptOutcome, c.OtherAttempt, c.OtherOutcome = nw.id, outcomeName(o), old.id, outcomeName(cur)
				} else {
					c.KeptAttempt, c.KeptOutcome, c.OtherAttempt, c.OtherOutcome = old.id, outcomeName(cur), nw.id, outcomeName(o)
				}
				st.conflicts = append(st.conflicts, c)
			}
		}
		if !win {
			return
		}
	}
	st.outcome[k], st.from[k] = o, ai
	if o == outInfrastructure {
		if st.reasons == nil {
			st.reasons = map[int]string{}
		}
		st.reasons[k] = reason
	} else if st.reasons != nil {
		delete(st.reasons, k)
	}
}

// AddSummary checks a termination-message summary. wantShard, when set, is the shard the pod
// that wrote it ran (from the Job's shard ConfigMap and the retry lineage); a summary for
// another shard is rejected.
func (r *Reconciler) AddSummary(source string, s *receipt.Summary, wantShard string) {
	if wantShard != "" && s.ShardID != wantShard {
		r.reject(Rejection{Source: source, ShardID: wantShard, AttemptID: s.AttemptID, Reason: RejectWrongShard,
			Message: fmt.Sprintf("the pod ran shard %q but its summary is for shard %q", wantShard, s.ShardID)})
		return
	}
	i, ok := r.checkHeader(source, s.AttemptID, s.Manifest, s.Candidate, s.ShardID, s.Assigned)
	if !ok {
		return
	}
	total := len(r.m.Shards[i].Cases) * r.reps
	// Each count is checked before they are added: counts near the int range (a summary is
	// any JSON) would otherwise wrap around to a small sum and pass.
	if c, f := s.Completed, s.Failed; c > total || f.Model > total || f.Infrastructure > total || c+f.Model+f.Infrastructure > total {
		n := fmt.Sprintf("%d+%d+%d", c, f.Model, f.Infrastructure)
		if c <= total && f.Model <= total && f.Infrastructure <= total {
			n = strconv.Itoa(c + f.Model + f.Infrastructure)
		}
		r.reject(Rejection{Source: source, ShardID: s.ShardID, AttemptID: s.AttemptID, Reason: RejectUnassignedCase,
			Message: fmt.Sprintf("reports %s results but shard %q has %d (%s × %s)", n, s.ShardID, total, textwrap.Count(len(r.m.Shards[i].Cases), "case", "cases"), textwrap.Count(r.reps, "repetition", "repetitions"))})
		return
	}
	r.candidates[r.effective(s.Candidate)]++
	a := attempt{id: s.AttemptID, source: source, kind: "summary", results: s.Completed + s.Failed.Model + s.Failed.Infrastructure, outputs: s.Outputs, summary: s}
	if s.FinishedAt != nil {
		a.finished, a.hasTime = s.FinishedAt.UTC(), true
	}
	r.shards[i].attempts = append(r.shards[i].attempts, a)
}

func sortedOutputs(atts []attempt, used func(int) bool) []string {
	var out []string
	for k := range atts {
		if used(k) {
			out = append(out, atts[k].outputs...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
