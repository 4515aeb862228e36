// Package indexstatus explains an Indexed Job index by index: from the Job, its pods and a
// clock it builds an IndexedJobStatus report (the Job's phase and the condition that decided
// it, in words; how complete the result is; the state, attempts, last exit and retry budget of
// every index; what happens next; what cannot be known because pods are gone).
//
// The package is pure: it takes typed objects and returns values. Pods can be fed one at a time
// to an Accumulator (the live command reduces each page of a paginated list and drops it), or
// all at once with Build (the offline command); both run the same code. Every rule mirrors the
// Job controller of the Kubernetes release in pkg/version (pkg/controller/job and pkg/apis/batch/validation).
//
// A report is made in three steps, each part in the file named by it: the facts (facts.go,
// with the Job's own fields), the decisions of what happens next (next.go, one function per
// entry; the commands in actions.go), and the words: each index's row and its group of the
// text view (rows.go) and detail (detail.go), Why (explain.go), Completeness and Waiting for
// (completeness.go), Notes and Unknown (notes.go), the small words they share and the
// grouping of indexes by cause (words.go), and the text view (print.go).
package indexstatus

import (
	"slices"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// APIVersion and Kind identify the report in JSON and YAML.
const (
	APIVersion = contract.APIVersion
	Kind       = contract.IndexedJobStatus
)

// Phase is the Job's phase as the report sees it.
type Phase string

// Phases, from the Job's conditions and spec.suspend.
const (
	// PhaseRunning: no finishing condition and not suspended.
	PhaseRunning Phase = "Running"
	// PhaseSuspended: spec.suspend is true (or the Suspended condition is True).
	PhaseSuspended Phase = "Suspended"
	// PhaseFailing: FailureTarget is set but Failed is not yet: the controller is still
	// terminating pods or counting them.
	PhaseFailing Phase = "Failing"
	// PhaseFailed: the Failed condition is True.
	PhaseFailed Phase = "Failed"
	// PhaseCompleting: SuccessCriteriaMet is set but Complete is not yet.
	PhaseCompleting Phase = "Completing"
	// PhaseComplete: the Complete condition is True.
	PhaseComplete Phase = "Complete"
)

// Terminal reports whether the Job will not change any more.
func (p Phase) Terminal() bool { return p == PhaseFailed || p == PhaseComplete }

// Finishing reports whether the Job has a finishing or finished condition (FailureTarget,
// Failed, SuccessCriteriaMet, Complete).
func (p Phase) Finishing() bool { return p != PhaseRunning && p != PhaseSuspended }

// State is the state of one completion index.
type State string

// Index states, in the order the report lists them.
const (
	// StateSucceeded: the index is in status.completedIndexes.
	StateSucceeded State = "Succeeded"
	// StateFailed: the index is in status.failedIndexes.
	StateFailed State = "Failed"
	// StateRunning: a pod of the index is running.
	StateRunning State = "Running"
	// StatePending: no pod has started yet (not created, pod pending, or the Job is suspended).
	StatePending State = "Pending"
	// StateRetrying: the last attempt failed and its replacement does not exist yet (backoff).
	StateRetrying State = "Retrying"
	// StateTerminating: the index's pod is being deleted.
	StateTerminating State = "Terminating"
	// StateUnfinished: the Job finished or is failing and the index is in neither set: it was
	// killed or never ran.
	StateUnfinished State = "Unfinished"
)

// States lists every index state in report order.
var States = []State{StateSucceeded, StateFailed, StateRunning, StatePending, StateRetrying, StateTerminating, StateUnfinished}

// IndexedJobStatus is the report. Its JSON field names are a public contract (docs/status.md).
type IndexedJobStatus struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Job        contract.JobRef `json:"job"`
	// ObservedAt is the clock's time when the report was made.
	ObservedAt time.Time `json:"observedAt"`

	// Phase, and the reason and message (verbatim) of the condition that decided it.
	Phase   Phase  `json:"phase"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Explanation says in words why the Job is in this phase; ExplanationEntry is the same as
	// a typed entry (kind, indexes) for pipelines.
	Explanation      string `json:"explanation"`
	ExplanationEntry Entry  `json:"explanationEntry"`
	// WaitingFor says what a Failing or Completing Job waits for before it is finished.
	WaitingFor string `json:"waitingFor,omitempty"`

	Completions int32  `json:"completions"`
	Parallelism int32  `json:"parallelism"`
	Policy      Policy `json:"policy"`
	// Counters are the Job's status counters as the controller wrote them.
	Counters Counters `json:"counters"`

	Summary      Summary      `json:"summary"`
	Completeness Completeness `json:"completeness"`
	// Grid folds consecutive indexes of equal state into runs, in index order.
	Grid []Run `json:"grid"`
	// Indexes lists every index with -o json, yaml or wide; the text view lists the indexes
	// that need attention.
	Indexes []IndexStatus `json:"indexes"`
	// Flaky are the indexes that succeeded only after more than one attempt, in the
	// controller's interval format (IndexStatus.Flaky, AttemptHistory).
	Flaky string `json:"flaky,omitempty"`

	// Next says what happens next, in words; NextEntries says the same as typed entries, one
	// per sentence, in the same order.
	Next        []string `json:"next,omitempty"`
	NextEntries []Entry  `json:"nextEntries,omitempty"`
	// Queue is the Job's place in Kueue (LocalQueue, ClusterQueue, Workload, admission state),
	// for a Job Kueue manages (pkg/kueue); absent otherwise.
	Queue *kueue.Queue `json:"queue,omitempty"`
	// Unknown says what cannot be known from what is left (pods gone, counts kept in memory);
	// UnknownEntries the same as typed entries.
	Unknown        []string `json:"unknown,omitempty"`
	UnknownEntries []Entry  `json:"unknownEntries,omitempty"`
	// Notes are other observations (malformed status strings, pods of other Jobs, shards).
	Notes []string `json:"notes,omitempty"`

	Pods   PodCounts  `json:"pods"`
	Shards *ShardInfo `json:"shards,omitempty"`
	// Retries are the Jobs that re-ran some of its indexes (live, from the lineage's label).
	Retries []RetryJob `json:"retries,omitempty"`

	// omitted are the indexes that need attention that Options.ListLimit left out of Indexes
	// (counted in the text view's "and N more"); omittedCases says whether one of them has
	// case counts (the text view's CASES column).
	omitted      indexes.Set
	omittedCases bool
	// unread are the Succeeded indexes whose succeeded pod was not read
	// (Accumulator.LeaveOutSucceeded): AddCaseCounts does not take an older attempt's receipt.
	unread indexes.Set
	// groups are the indexes that need attention by cause (rows.go), for the text view.
	groups []indexGroup
	// flakyWords names the flaky indexes by the exits of their failed attempts, for the
	// text view (flaky.go).
	flakyWords string
	// failedByPolicy and policyRules are FailedByPolicy's answer (actions.go).
	failedByPolicy indexes.Set
	policyRules    string
}

// Policy is the part of the spec that decides retries and failure.
type Policy struct {
	BackoffLimit          *int32 `json:"backoffLimit,omitempty"`
	BackoffLimitPerIndex  *int32 `json:"backoffLimitPerIndex,omitempty"`
	MaxFailedIndexes      *int32 `json:"maxFailedIndexes,omitempty"`
	PodReplacementPolicy  string `json:"podReplacementPolicy,omitempty"`
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	PodFailurePolicyRules int    `json:"podFailurePolicyRules"`
	SuccessPolicyRules    int    `json:"successPolicyRules"`
	Suspend               bool   `json:"suspend"`
	RestartPolicy         string `json:"restartPolicy,omitempty"`
	ManagedBy             string `json:"managedBy,omitempty"`
}

// Counters are status fields of the Job.
type Counters struct {
	Active           int32      `json:"active"`
	Ready            int32      `json:"ready"`
	Terminating      int32      `json:"terminating"`
	Succeeded        int32      `json:"succeeded"`
	Failed           int32      `json:"failed"`
	CompletedIndexes string     `json:"completedIndexes"`
	FailedIndexes    *string    `json:"failedIndexes,omitempty"`
	StartTime        *time.Time `json:"startTime,omitempty"`
	CompletionTime   *time.Time `json:"completionTime,omitempty"`
}

// Summary counts indexes per state; the counts add up to completions.
type Summary struct {
	Succeeded   int `json:"succeeded"`
	Failed      int `json:"failed"`
	Running     int `json:"running"`
	Pending     int `json:"pending"`
	Retrying    int `json:"retrying"`
	Terminating int `json:"terminating"`
	Unfinished  int `json:"unfinished"`
}

// Count returns the count for state.
func (s *Summary) Count(state State) int {
	if n := s.count(state); n != nil {
		return *n
	}
	return 0
}

// Add counts one more index of state.
func (s *Summary) Add(state State) {
	if c := s.count(state); c != nil {
		*c++
	}
}

// count is the field that counts state (nil for no state); the fields are in States' order.
func (s *Summary) count(state State) *int {
	if i := slices.Index(States, state); i >= 0 {
		return [...]*int{&s.Succeeded, &s.Failed, &s.Running, &s.Pending, &s.Retrying,
			&s.Terminating, &s.Unfinished}[i]
	}
	return nil
}

// Completeness says how much of the work has a successful result.
type Completeness struct {
	// Succeeded of Completions indexes are in completedIndexes.
	Succeeded   int   `json:"succeeded"`
	Completions int32 `json:"completions"`
	// Complete is true only when every index succeeded; never for a Job that failed or
	// completed through its success policy with indexes missing.
	Complete bool `json:"complete"`
	// Missing are the indexes without a successful result, in the controller's interval format.
	Missing indexes.Set `json:"missing"`
	// Verdict says in words whether the result can be used as complete.
	Verdict string `json:"verdict"`
}

// Run is a range of consecutive indexes in the same state.
type Run struct {
	First   int    `json:"first"`
	Last    int    `json:"last"`
	Indexes string `json:"indexes"`
	State   State  `json:"state"`
}

// IndexStatus is one completion index.
type IndexStatus struct {
	Index   int    `json:"index"`
	ShardID string `json:"shardID,omitempty"`
	// OriginalIndex is, for a Job made by kubectl indexed retry, the root Job's completion
	// index this index runs (from the indexed.kubectl.io/original-indexes annotation).
	OriginalIndex *int  `json:"originalIndex,omitempty"`
	State         State `json:"state"`
	// Attempts is the number of pods that ran the index (from the failure-count annotations
	// when backoffLimitPerIndex is set, else the pods still present).
	Attempts int `json:"attempts"`
	// LastExitCode is the exit code of the latest finished attempt, null when unknown.
	LastExitCode *int32 `json:"lastExitCode"`
	// LastReason is that container's terminated reason (or the pod's status reason).
	LastReason string `json:"lastReason,omitempty"`
	// LastContainer is the container that exit code belongs to.
	LastContainer string `json:"lastContainer,omitempty"`
	// Rule is the podFailurePolicy rule that matched the latest failed attempt.
	Rule *RuleMatch `json:"podFailurePolicyRule,omitempty"`
	// FailureCount counts the failures of the index that count against backoffLimitPerIndex,
	// IgnoredFailureCount those an Ignore rule matched: the latest pod's
	// job-index-failure-count and job-index-ignored-failure-count annotations, plus its own
	// failure when it failed.
	FailureCount        int32 `json:"failureCount"`
	IgnoredFailureCount int32 `json:"ignoredFailureCount"`
	// RetriesLeft is how many more counted failures the index absorbs before it fails
	// (backoffLimitPerIndex − failureCount); absent without backoffLimitPerIndex.
	RetriesLeft *int32 `json:"retriesLeft,omitempty"`
	// BackoffRemainingSeconds is, for a Retrying index, how long until the replacement pod may
	// be created (0: due now); BackoffSeconds the whole backoff it waits.
	BackoffRemainingSeconds *int64 `json:"backoffRemainingSeconds,omitempty"`
	BackoffSeconds          *int64 `json:"backoffSeconds,omitempty"`
	// Pods are the names of the index's pods still present, oldest attempt first.
	Pods []string `json:"pods"`
	// Detail says in words what happened to the index.
	Detail string `json:"detail"`
	// Cases are the counts of the receipt summary in the termination message of the index's
	// latest attempt that left one (docs/reconcile.md).
	Cases *CaseCounts `json:"cases,omitempty"`
	// Flaky: the index succeeded, but only after more than one attempt.
	Flaky bool `json:"flaky,omitempty"`
	// AttemptHistory is, for an index with more than one attempt, and for one whose attempt
	// ended or is ending without success (Failed, Retrying, Terminating, Unfinished), each
	// attempt whose pod was read, oldest first: at most MaxAttemptHistory, the latest.
	// AttemptsNotListed counts the attempts of Attempts it leaves out (pods gone, or older
	// than the bound).
	AttemptHistory    []Attempt `json:"attemptHistory,omitempty"`
	AttemptsNotListed int       `json:"attemptsNotListed,omitempty"`
}

// MaxAttemptHistory is how many attempts IndexStatus.AttemptHistory lists per index, the latest.
const MaxAttemptHistory = 8

// Attempt is one attempt (pod) of an index.
type Attempt struct {
	// Attempt counts from 1: from the pod's failure-count annotations under
	// backoffLimitPerIndex, else the pod's place among the index's pods read.
	Attempt int `json:"attempt"`
	// Pod is the pod's name; empty for a succeeded attempt whose pod was not read (live status
	// without --all-pods reads the pods that did not succeed; status.completedIndexes says the
	// index succeeded, and a succeeded pod's containers all exited 0).
	Pod   string `json:"pod,omitempty"`
	Phase string `json:"phase"`
	// ExitCode is the exit code of the container that decided the attempt (as LastExitCode),
	// null while it runs or when no container terminated.
	ExitCode  *int32 `json:"exitCode"`
	Reason    string `json:"reason,omitempty"`
	Container string `json:"container,omitempty"`
	// Node is the node the pod ran on (spec.nodeName), empty before it was bound or when its
	// pod was not read.
	Node string `json:"node,omitempty"`
	// StartedAt is the pod's status.startTime; FinishedAt, for a pod that succeeded or failed,
	// when it finished (the controller's getFinishedTime: the last container's finishedAt,
	// else the pod's Ready=False transition), absent while it runs or is being deleted. Both
	// absent when its pod was not read.
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// RuleMatch is a podFailurePolicy rule that matched a failed pod.
type RuleMatch struct {
	Index  int    `json:"index"`
	Action string `json:"action"`
	// On says what matched: "exit code 42 in container worker" or "condition DisruptionTarget".
	On string `json:"on"`
}

// PodCounts says which pods the report was made from.
type PodCounts struct {
	// Seen pods of this Job, by their state.
	Seen        int `json:"seen"`
	Active      int `json:"active"`
	Terminating int `json:"terminating"`
	Succeeded   int `json:"succeeded"`
	Failed      int `json:"failed"`
	// Ignored pods were given but belong to another Job or carry no completion index.
	Ignored int `json:"ignored"`
	// NotRead counts the succeeded pods that were not read, one per index that succeeded
	// without a succeeded pod read: live status reads the pods that did not succeed, and the
	// Job's status.completedIndexes says which indexes succeeded (status --all-pods reads every
	// pod). Seen, Succeeded and the others count the pods read.
	NotRead int `json:"notRead,omitempty"`
}

// ShardInfo says where shard IDs came from.
type ShardInfo struct {
	ConfigMap string `json:"configMap,omitempty"`
	Count     int    `json:"count"`
}

// EntryKind says what an entry of Next, Unknown or the explanation is about. The kinds are a
// public contract (docs/status.md).
type EntryKind string

// Entry kinds.
const (
	// Explanation kinds: the Job's phase and, when it finished or is finishing, the condition's reason.
	EntryRunning    EntryKind = "Running"
	EntrySuspended  EntryKind = "Suspended"
	EntryNotStarted EntryKind = "NotStarted"
	// EntryReason: the explanation of a finishing or finished Job; Reason holds the condition's reason.
	EntryReason EntryKind = "ConditionReason"

	// Next kinds.
	EntryFinished        EntryKind = "Finished"         // nothing more runs; DueAt: TTL deletion
	EntryFinishing       EntryKind = "Finishing"        // FailureTarget or SuccessCriteriaMet waits for pods
	EntryResume          EntryKind = "ResumeToRun"      // suspended: Command resumes it
	EntryRetry           EntryKind = "Retry"            // Indexes get a new pod at DueAt
	EntryLastAttempt     EntryKind = "LastAttempt"      // Indexes fail on their next failure
	EntryMaxFailed       EntryKind = "MaxFailedIndexes" // Count more failed indexes fail the Job
	EntryCannotSucceed   EntryKind = "CannotSucceed"    // failed Indexes rule success out
	EntryCanStillSucceed EntryKind = "CanStillSucceed"  // failed Indexes, but the success policy can still be met
	EntryBackoffLimit    EntryKind = "BackoffLimit"     // Count more counted failures fail the Job
	EntryRestartLimit    EntryKind = "RestartLimit"     // Count more container restarts fail the Job (OnFailure)
	EntryDeadline        EntryKind = "Deadline"         // activeDeadlineSeconds fails the Job at DueAt
	EntryNotStartedYet   EntryKind = "Pending"          // Indexes not started yet
	EntryRunsAgain       EntryKind = "RunsAgain"        // Indexes whose finished pods are no longer counted

	// Unknown kinds.
	EntryFailureGone     EntryKind = "FailureReasonGone" // why Indexes failed: pods gone
	EntryRunUnknown      EntryKind = "RunUnknown"        // whether Indexes ran: no pod left
	EntryAttemptsUnknown EntryKind = "AttemptsUnknown"   // attempts counted from the pods left
	EntryBackoffEstimate EntryKind = "BackoffEstimated"  // the global backoff is kept in memory
)

// Next entries about who acts on the Job.
const (
	// EntryAwaitingAdmission: suspended by Kueue (label kueue.x-k8s.io/queue-name); Command
	// shows its Workload. Kueue owns spec.suspend.
	EntryAwaitingAdmission EntryKind = "AwaitingAdmission"
	// EntryExternalController: spec.managedBy names another controller; the built-in one does
	// not act on the Job.
	EntryExternalController EntryKind = "ExternalController"
)

// Next entries about what the controller's next sync does (issue 25: checked against its own
// syncJob in test/oracle).
const (
	// EntryRetryWaits: Indexes wait in backoff or behind lower pending indexes for a pod slot
	// (firstPendingIndexes takes the lowest pending indexes, as many as parallelism leaves
	// free): no DueAt, their retry comes once a slot is free and their backoff has passed.
	EntryRetryWaits EntryKind = "RetryWaitsForSlot"
	// EntryBeingDeleted: metadata.deletionTimestamp is set: manageJob does not run (no pod is
	// created or retried) and the controller removes its pods' tracking finalizers.
	EntryBeingDeleted EntryKind = "BeingDeleted"
	// EntryNextSyncFinishes: no finishing condition yet, but the next sync sets one; Reason is
	// the condition's reason (PodFailurePolicy, BackoffLimitExceeded, CompletionsReached, ...).
	EntryNextSyncFinishes EntryKind = "NextSyncFinishes"
)

// Entry is one statement of the report as data: what it is about, the indexes concerned, when
// it happens and the command that acts on it; Text is the same statement in words.
type Entry struct {
	Kind EntryKind `json:"kind"`
	// Reason is the Job condition's reason (EntryReason; EntryNextSyncFinishes: the one the next sync sets).
	Reason string `json:"reason,omitempty"`
	// Indexes concerned, in the controller's interval format.
	Indexes indexes.Set `json:"indexes,omitzero"`
	// Count is how many more failures, restarts or failed indexes a limit allows.
	Count *int64 `json:"count,omitempty"`
	// DueAt is when it happens (a retry, the deadline, the TTL deletion).
	DueAt *time.Time `json:"dueAt,omitempty"`
	// Command is a kubectl command that acts on it.
	Command string `json:"command,omitempty"`
	Text    string `json:"text"`
}

// RetryJob is a Job that re-runs some indexes of the Job a report is about (kubectl indexed
// retry): Indexes are those indexes (the report's Job's own completion indexes), Succeeded and
// Failed the ones of them it settled; a finished retry failed what it did not succeed.
type RetryJob struct {
	Name      string      `json:"name"`
	Attempt   int         `json:"attempt"`
	Indexes   indexes.Set `json:"indexes"`
	Succeeded indexes.Set `json:"succeeded"`
	Failed    indexes.Set `json:"failed"`
	Finished  bool        `json:"finished"`
}
