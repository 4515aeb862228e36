// Package reconcile checks shard receipts against the shard manifest before any score is
// computed: which shards are complete, which are partial (and which cases they miss), which
// failed for the model, which were not evaluated (infrastructure), which have no receipt, and
// which receipts are rejected (another manifest revision or hash, another candidate, an
// unknown shard, a case the shard was not assigned, malformed or truncated) and never merged.
// It states coverage (results evaluated / results in the manifest, and per class) with every
// shard of the manifest in the denominator.
//
// The package is pure: it takes parsed manifests, receipts and summaries and returns a report.
// It holds one small record per result of the manifest and the receipts' attempts, never the
// receipts themselves, so memory grows with the manifest, not with the receipts read.
package reconcile

import (
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// APIVersion and Kind identify the report in JSON and YAML.
const (
	APIVersion = contract.APIVersion
	Kind       = contract.ReconcileReport
)

// State is a shard's state.
type State string

// Shard states.
const (
	// StateComplete: every assigned result was evaluated and none failed.
	StateComplete State = "complete"
	// StateFailed: every assigned result was evaluated; some failed for the model (the answer
	// was wrong). Fully evaluated: the failures are part of the score.
	StateFailed State = "failed"
	// StatePartial: some assigned results have no evaluated outcome (missing from every
	// receipt, or failed for infrastructure) and some do.
	StatePartial State = "partial"
	// StateNotEvaluated: no assigned result was evaluated and infrastructure failures were
	// reported (timeout, service error, invalid input).
	StateNotEvaluated State = "not-evaluated"
	// StateMissing: no receipt and no summary for the shard.
	StateMissing State = "missing"
	// StateRejected: every receipt or summary for the shard was rejected.
	StateRejected State = "rejected"
)

// States lists the shard states in report order.
var States = []State{StateComplete, StateFailed, StatePartial, StateNotEvaluated, StateMissing, StateRejected}

// Report is the reconcile report. Its JSON field names are a public contract
// (docs/reconcile.md).
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Manifest is the manifest the receipts were checked against.
	Manifest contract.ManifestRef `json:"manifest"`
	// Candidate is the candidate every accepted receipt names ("" when none does).
	Candidate   string `json:"candidate,omitempty"`
	Repetitions int    `json:"repetitions"`
	// Jobs are the Jobs whose pods were read (live), the root first.
	Jobs []LineageJob `json:"jobs,omitempty"`

	Coverage Coverage `json:"coverage"`
	// Complete is true only when every result of the manifest was evaluated.
	Complete bool `json:"complete"`
	// Verdict says in words whether a score can be computed.
	Verdict string `json:"verdict"`
	// DuplicateRule states how results reported by several attempts were resolved.
	DuplicateRule string `json:"duplicateRule"`

	Shards   []ShardReport `json:"shards"`
	Rejected []Rejection   `json:"rejected"`
	Notes    []string      `json:"notes,omitempty"`
}

// LineageJob names a Job of the lineage that ran shards, and its place in the lineage.
type LineageJob struct {
	contract.JobRef
	// RetryAttempt is the retry's number in its lineage (0 for the root Job).
	RetryAttempt int `json:"retryAttempt"`
	// OriginalIndexes are the root indexes a retry ran, in interval form ("" for the root).
	OriginalIndexes indexes.Set `json:"originalIndexes,omitzero"`
}

// Coverage counts results (a case and a repetition) and shards. Every result and shard of the
// manifest is in a total: a shard without receipts counts as missing, never as zero, and never
// leaves the denominator.
type Coverage struct {
	// Results in the manifest: cases × repetitions.
	Results int `json:"results"`
	// Evaluated = Passed + ModelFailures.
	Evaluated     int `json:"evaluated"`
	Passed        int `json:"passed"`
	ModelFailures int `json:"modelFailures"`
	// Infrastructure results were attempted but not evaluated.
	Infrastructure int `json:"infrastructure"`
	// Missing results have no outcome in any accepted receipt or summary (their shard may be
	// missing, rejected or partial).
	Missing int `json:"missing"`
	// Fraction is Evaluated / Results; Text says "10/12 (83.3%)".
	Fraction float64 `json:"fraction"`
	Text     string  `json:"text"`

	// Shards in the manifest, and how many are fully evaluated (complete or failed).
	Shards          int           `json:"shards"`
	ShardsEvaluated int           `json:"shardsEvaluated"`
	ShardStates     map[State]int `json:"shardStates"`
}

// ShardReport is one shard of the manifest.
type ShardReport struct {
	// Index is the shard's completion index in the manifest (the root Job's index).
	Index   int    `json:"index"`
	ShardID string `json:"shardID"`
	State   State  `json:"state"`
	// Results assigned (cases × repetitions), and their outcomes.
	Results        int `json:"results"`
	Evaluated      int `json:"evaluated"`
	Passed         int `json:"passed"`
	ModelFailures  int `json:"modelFailures"`
	Infrastructure int `json:"infrastructure"`
	Missing        int `json:"missing"`
	// MissingCases names the results without an outcome (from receipts); when only summaries
	// were read, MissingNamed is false and only the count is known.
	MissingCases []CaseRef `json:"missingCases,omitempty"`
	MissingNamed bool      `json:"missingNamed"`
	// NotEvaluatedCases names the infrastructure failures, with their reasons (receipts only).
	NotEvaluatedCases []CaseFailure `json:"notEvaluatedCases,omitempty"`
	// Reasons counts the infrastructure reasons (the first few distinct ones).
	Reasons []ReasonCount `json:"reasons,omitempty"`
	// Source says what the outcome rests on: "receipts", "summary" or "".
	Source string `json:"source,omitempty"`
	// Attempts are the attempts whose receipts or summaries were accepted for the shard.
	Attempts []Attempt `json:"attempts,omitempty"`
	// Duplicates counts results reported by more than one attempt; Conflicts those whose
	// evaluated outcomes disagree (passed in one, failed for the model in another).
	Duplicates int        `json:"duplicates"`
	Conflicts  []Conflict `json:"conflicts,omitempty"`
	// Rejected counts the rejected receipts and summaries for the shard (listed in
	// Report.Rejected).
	Rejected int `json:"rejected"`
	// Outputs are the result locations the used attempts name.
	Outputs []string `json:"outputs,omitempty"`
	// Detail says in words what is known of the shard.
	Detail string `json:"detail"`
}

// CaseRef is one result: a case and its repetition.
type CaseRef struct {
	Case       string `json:"case"`
	Repetition int    `json:"repetition"`
}

// CaseFailure is a result that failed, with its reason.
type CaseFailure struct {
	CaseRef
	Reason    string `json:"reason,omitempty"`
	AttemptID string `json:"attemptID"`
}

// ReasonCount is an infrastructure reason and how many results it stopped.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Attempt is one accepted receipt or summary.
type Attempt struct {
	AttemptID string `json:"attemptID"`
	// Source is the file or pod it was read from; Kind "receipt" or "summary".
	Source     string     `json:"source"`
	Kind       string     `json:"kind"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// Results it reported, and how many of them the duplicate rule kept.
	Results int `json:"results"`
	Kept    int `json:"kept"`
	// Used is false for a summary another attempt's evidence superseded.
	Used bool `json:"used"`
}

// Conflict is a result two attempts evaluated with different outcomes.
type Conflict struct {
	CaseRef
	KeptAttempt  string `json:"keptAttempt"`
	KeptOutcome  string `json:"keptOutcome"`
	OtherAttempt string `json:"otherAttempt"`
	OtherOutcome string `json:"otherOutcome"`
}

// Rejection is a receipt or summary that was not merged, and why.
type Rejection struct {
	Source string `json:"source"`
	// ShardID is the shard it claims to be for ("" when it could not be read).
	ShardID   string `json:"shardID,omitempty"`
	AttemptID string `json:"attemptID,omitempty"`
	// Reason is one of RejectManifest, RejectCandidate, RejectUnknownShard, RejectWrongShard,
	// RejectAssignment, RejectUnassignedCase, RejectMalformed, RejectTruncated.
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Rejection reasons.
const (
	RejectManifest       = "manifest-mismatch"
	RejectCandidate      = "candidate-mismatch"
	RejectUnknownShard   = "unknown-shard"
	RejectWrongShard     = "wrong-shard"
	RejectAssignment     = "assignment-mismatch"
	RejectUnassignedCase = "unassigned-case"
	RejectMalformed      = "malformed"
	RejectTruncated      = "truncated"
)

// DuplicateRule is the one rule that resolves a result reported by several attempts.
const DuplicateRule = "For a result (manifest, candidate, case, repetition) reported by several attempts, an evaluated outcome " +
	"(passed or a model failure) wins over an infrastructure failure; among equals, the attempt that finished last wins " +
	"(finishedAt; ties: the greater attemptID in byte order). Every such result is counted in duplicates, and one whose " +
	"evaluated outcomes disagree is listed in conflicts. Summaries name no case, so they are never merged: a shard known " +
	"only from summaries is reported from the one with the most evaluated results (ties: the later finished, then the " +
	"greater attemptID)."
