// Package jobdiff compares a live batch/v1 Job with the Job a user wants, and says for each
// difference whether the running Job can take it (patchable live), can take it only under a
// condition (while suspended, or in tandem with another field), or cannot take it at all (a
// new Job is needed), following the update validation of the mirrored Kubernetes API server (pkg/version).
//
// It compares only what the user controls: server defaults are filled in on both sides, and
// the selector and labels the server generates, the status and the server's metadata are left
// out. It is a pure package: it takes typed Jobs and returns a Report; talking to the cluster
// (including the optional server-side dry-run confirmation) is the caller's job.
package jobdiff

import (
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

// APIVersion and Kind of the Report, the public JSON contract of `kubectl indexed diff -o json`.
const (
	APIVersion = contract.APIVersion
	Kind       = contract.JobDiff
)

// Class says what it takes to bring the live Job to the desired value of one difference.
type Class string

const (
	// ClassLive: the field can be patched on the live Job now.
	ClassLive Class = "Live"
	// ClassConditional: the field can be patched only under a condition (the Job suspended,
	// or in tandem with another field); Condition says which and HoldsNow whether it does.
	ClassConditional Class = "Conditional"
	// ClassNewJob: the API server rejects the change on this Job, or the Job has finished and
	// would never use it; a new Job is needed.
	ClassNewJob Class = "NewJob"
)

// Change says how a field differs.
type Change string

const (
	// ChangeSet: the live Job does not have the field, the desired one does.
	ChangeSet Change = "set"
	// ChangeUnset: the live Job has the field, the desired one does not.
	ChangeUnset Change = "unset"
	// ChangeModify: both have the field, with different values.
	ChangeModify Change = "change"
)

// Report is the result of Diff: the kind JobDiff of the JSON contract.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Job names the live Job.
	Job Target `json:"job"`
	// Live is what the live Job is doing, as far as it matters for the classification.
	Live LiveState `json:"live"`
	// Differences, ordered by path.
	Differences []Difference `json:"differences"`
	// Warnings about the Jobs and the changes (prepare-db mode, changes without effect, ...).
	Warnings []Warning `json:"warnings"`
	// Plan is the safe way to get from the live Job to the desired one.
	Plan []Step `json:"plan"`
	// Server holds the result of diff --server-dry-run: the classification checked by server-side
	// dry-run updates of the live Job. Absent when not asked for.
	Server *ServerCheck `json:"server,omitempty"`
}

// Target names the live Job the diff is about, and the desired manifest's name when it differs.
type Target struct {
	contract.JobRef
	// DesiredName is the name in the desired manifest when it differs from Name.
	DesiredName string `json:"desiredName,omitempty"`
}

// Phase is the state of the live Job as the diff sees it.
type Phase string

const (
	PhaseNotStarted Phase = "NotStarted" // not suspended, no startTime yet
	PhaseRunning    Phase = "Running"
	PhaseSuspending Phase = "Suspending" // spec.suspend is true, pods or the Suspended condition pending
	PhaseSuspended  Phase = "Suspended"  // spec.suspend is true and the pod template may change
	PhaseFailing    Phase = "Failing"    // FailureTarget, not yet Failed
	PhaseSucceeding Phase = "Succeeding" // SuccessCriteriaMet, not yet Complete
	PhaseComplete   Phase = "Complete"
	PhaseFailed     Phase = "Failed"
)

// LiveState is what the live Job's spec and status say about what can still change.
type LiveState struct {
	Phase Phase `json:"phase"`
	// Reason of the FailureTarget/Failed or SuccessCriteriaMet/Complete condition, if any.
	Reason    string     `json:"reason,omitempty"`
	Suspend   bool       `json:"suspend"`
	Active    int32      `json:"active"`
	Succeeded int32      `json:"succeeded"`
	Failed    int32      `json:"failed"`
	StartTime *time.Time `json:"startTime,omitempty"`
	// FinishTime is the lastTransitionTime of Complete or Failed.
	FinishTime *time.Time `json:"finishTime,omitempty"`
	// TemplateMutable: spec.suspend is true, status.active is 0, and the Job never started or
	// has Suspended=True, so resources, node affinity, node selector, tolerations, scheduling
	// gates and the template's labels and annotations may change.
	TemplateMutable bool `json:"templateMutable"`
}

// Difference is one field that differs between the live and the desired Job.
type Difference struct {
	// Path of the field: dot-separated; map keys that are not plain words are written
	// ["key"]; list items are written [name=NAME] when the list is keyed by name and [N]
	// otherwise. Example: spec.template.spec.containers[name=worker].resources.limits.cpu.
	Path string `json:"path"`
	// Field is the row of the mutability table the difference falls under.
	Field string `json:"field"`
	// Change is set, unset or change.
	Change Change `json:"change"`
	// Live and Desired are the values (after defaulting), absent when the side lacks it.
	Live    any `json:"live,omitempty"`
	Desired any `json:"desired,omitempty"`
	// Class is Live, Conditional or NewJob.
	Class Class `json:"class"`
	// Condition is what must hold for the API server to accept the change (Conditional),
	// or why it never will on this Job (NewJob).
	Condition string `json:"condition,omitempty"`
	// HoldsNow says whether the live Job can take the change now: true for Live, the state of
	// the condition for Conditional, false for NewJob.
	HoldsNow bool `json:"holdsNow"`

	path fieldPath
	// group names the differences that must go in the same update (completions and
	// parallelism of an Indexed Job).
	group string
}

// Warning is advice that does not change a classification.
type Warning struct {
	// Code is a stable identifier, for example PrepareDBMode.
	Code string `json:"code"`
	// Side is live, desired or change (about applying the change to the live Job).
	Side    string `json:"side"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// Warning sides.
const (
	SideLive    = "live"
	SideDesired = "desired"
	SideChange  = "change"
)

// Step kinds, part of the JSON contract.
const (
	StepPatch = "patch" // patch the live Job now
	// StepDrastic names changes a warning calls dangerous (they would end or delete the live
	// Job at once, or retry its pods without limit); it has no command: the plan never
	// proposes them, the user patches them only if meant.
	StepDrastic = "drastic"
	StepTandem  = "tandem" // completions and parallelism in two patches
	StepSuspend = "suspend-and-patch"
	StepNewJob  = "new-job"
)

// Step is one step of the plan.
type Step struct {
	// Kind is patch, drastic, tandem, suspend-and-patch or new-job.
	Kind string `json:"kind"`
	// Description says what the step does and why, in words.
	Description string `json:"description"`
	// Commands to run, in order. kubectl patch commands carry the exact patch; a new-job step
	// creates the Job under a name no Job has. None carries a change a warning calls dangerous.
	Commands []string `json:"commands,omitempty"`
	// Paths of the differences the step brings over.
	Paths []string `json:"paths,omitempty"`
}

// ServerCheck is the outcome of confirming the classification with server-side dry-run
// updates of the live Job.
type ServerCheck struct {
	Probes []ProbeResult `json:"probes"`
	// Disagreements counts probes whose outcome contradicts the classification: each is a bug
	// in kubectl indexed.
	Disagreements int `json:"disagreements"`
}

// Outcome of a dry-run update.
type Outcome string

const (
	OutcomeAccepted Outcome = "accepted"
	OutcomeRejected Outcome = "rejected"
	// OutcomeDropped: the server accepted the update but did not keep the value (a field of a
	// disabled feature, for example). It agrees with an expected rejection: either way the live
	// Job does not get the change.
	OutcomeDropped Outcome = "accepted-but-dropped"
)

// ProbeResult is one dry-run update and what came of it.
type ProbeResult struct {
	// Name says what was tried: "apply now" (every change the classification says the live
	// Job takes now, in one update) or the path of one change it says the Job cannot take.
	Name     string   `json:"name"`
	Paths    []string `json:"paths"`
	Expected Outcome  `json:"expected"`
	Outcome  Outcome  `json:"outcome"`
	// Message is the server's answer when it rejected the update.
	Message string `json:"message,omitempty"`
	Agrees  bool   `json:"agrees"`
}
