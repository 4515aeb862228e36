package lint

import (
	"strconv"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/version"
)

// Rule is one check of lint, with a stable ID.
type Rule struct {
	// ID never changes once released; --disable and the JSON report use it.
	ID string `json:"id"`
	// Severity of the rule's findings (kube-version-feature also reports an error for a field the
	// target version lacks, and info for beta features).
	Severity Severity `json:"severity"`
	// What the rule flags, in one line.
	What string `json:"what"`
	// Why it matters.
	Why string `json:"why"`
	// Fix says what to change.
	Fix string `json:"fix"`
}

// Rule IDs of the checks lint makes itself (the server-mirroring error rules are in jobspec).
const (
	RuleUnreadable           = "unreadable-document"
	RuleInvalidObject        = "invalid-object"
	RuleUnknownField         = "unknown-field"
	RuleDuplicateField       = "duplicate-field"
	RulePrepareDB            = "prepare-db-mode"
	RuleBackoffWithPerIdx    = "backoff-limit-with-per-index"
	RulePerIndexOnFailure    = "per-index-with-on-failure"
	RuleDeadlineZero         = "active-deadline-zero"
	RuleParallelismZero      = "parallelism-zero"
	RuleSucceededCountZero   = "succeeded-count-zero"
	RuleMaxFailedZero        = "max-failed-indexes-zero"
	RuleMaxFailedUnset       = "max-failed-indexes-unset"
	RuleMaxFailedNoEffect    = "max-failed-indexes-ineffective"
	RuleTTLTooShort          = "ttl-too-short"
	RuleNoDisruptionIgnore   = "no-disruption-ignore"
	RuleDisruptionShadowed   = "disruption-ignore-shadowed"
	RuleFailJob              = "fail-job-rule"
	RuleSuccessPartial       = "success-policy-partial"
	RuleTerminatingOrFail    = "terminating-or-failed-per-index"
	RuleManagedExternally    = "managed-by-external"
	RuleKubeVersion          = "kube-version-feature"
	RuleImageNoDigest        = "image-without-digest"
	RuleSingleIndex          = "indexed-single-completion"
	RuleSuspended            = "suspended"
	RuleSkippedKind          = "skipped-kind"
	RuleCronJobIndexHostname = "cronjob-index-hostname"
	RuleContainerRestart     = "container-restart-policy"
)

const serverRejects = "The API server rejects the object; nothing is created."

// backoffLimit's defaults, as the rules' words give them.
var (
	defaultBackoffLimit   = strconv.Itoa(int(jobpolicy.DefaultBackoffLimit))
	unlimitedBackoffLimit = strconv.Itoa(int(jobpolicy.UnlimitedBackoffLimit))
)

var rules = []Rule{
	// Input.
	{RuleUnreadable, SeverityError, "A document that is not YAML or JSON, or not an object.",
		"Nothing in it can be checked, and kubectl refuses the whole file.", "Fix the syntax at the line given; every document must be a mapping with apiVersion and kind."},
	{RuleInvalidObject, SeverityError, "kind or apiVersion missing or unknown for a Job/CronJob, or a field of the wrong type (a string where a number belongs).",
		"kubectl or the API server refuses the object before any validation.", "Use apiVersion batch/v1 and the types of the Job API (kubectl explain job.spec)."},
	{RuleUnknownField, SeverityError, "Unknown fields (a misspelt or misplaced setting).",
		"kubectl's default strict field validation makes the API server reject the object (\"strict decoding error: unknown field\"); with --validate=false the field would be dropped silently and the setting never take effect.", "Fix the spelling or the indentation of the field named (kubectl explain job.spec lists the fields)."},
	{RuleDuplicateField, SeverityWarning, "A field given twice in one object.",
		"kubectl keeps the last value and sends the object without the duplicate, so the server accepts it: the first value is ignored without a word, whichever one was meant.", "Keep one of the two."},
	// Mirrors of the API server's validation (pkg/jobspec).
	{jobspec.RuleObjectMetadata, SeverityError, "metadata: name or generateName missing, name not a DNS-1123 subdomain, invalid labels or annotations.",
		serverRejects, "Use a lowercase name of letters, digits, '-' and '.', at most 253 characters (63 for Jobs, see job-name-too-long)."},
	{jobspec.RuleJobNameTooLong, SeverityError, "Job name longer than 63 characters.",
		"The server copies the name into the job-name labels of the pod template, and a label value may not exceed 63 characters. " + serverRejects, "Shorten the name to at most 63 characters (for Indexed Jobs, leave room for -<index>)."},
	{jobspec.RuleIndexHostname, SeverityError, "Indexed Job whose name plus -<completions-1> is not a DNS label (too long).",
		"Each pod's hostname is <job-name>-<index>. " + serverRejects, "Shorten the name so that <name>-<completions-1> has at most 63 characters."},
	{jobspec.RuleNegativeValue, SeverityError, "A count, limit or duration below 0.",
		serverRejects, "Use 0 or more."},
	{jobspec.RuleCompletionMode, SeverityError, "completionMode other than NonIndexed or Indexed.",
		serverRejects, "Use completionMode: Indexed (or NonIndexed)."},
	{jobspec.RuleIndexedCompletions, SeverityError, "Indexed Job without completions.",
		serverRejects + " (With neither completions nor parallelism, both default to 1 and the Job is accepted.)", "Set spec.completions to the number of indexes (shards)."},
	{jobspec.RuleIndexedLimits, SeverityError, "Indexed limits: parallelism above 100000; maxFailedIndexes above 100000; above 100000 completions with backoffLimitPerIndex, maxFailedIndexes required and parallelism and maxFailedIndexes at most 10000.",
		"The server caps what it can track in completedIndexes/failedIndexes. " + serverRejects, "Lower parallelism/maxFailedIndexes, or split the work into several Jobs."},
	{jobspec.RulePerIndexNeedsIndexed, SeverityError, "backoffLimitPerIndex or maxFailedIndexes on a NonIndexed Job.",
		serverRejects, "Set completionMode: Indexed, or remove the per-index fields."},
	{jobspec.RuleMaxFailedIndexes, SeverityError, "maxFailedIndexes without backoffLimitPerIndex, or above completions.",
		serverRejects, "Set backoffLimitPerIndex, and keep maxFailedIndexes at most completions."},
	{jobspec.RuleManagedBy, SeverityError, "managedBy not a domain-prefixed path (acme.io/foo) or longer than 63 bytes.",
		serverRejects, "Remove managedBy (the built-in controller), or use the controller's domain-prefixed name."},
	{jobspec.RuleFailIndexNeedsPerIdx, SeverityError, "A podFailurePolicy rule with action FailIndex but no backoffLimitPerIndex.",
		serverRejects, "Set spec.backoffLimitPerIndex (Indexed Jobs only), or use another action."},
	{jobspec.RulePodFailurePolicy, SeverityError, "podFailurePolicy malformed: more than 20 rules, missing or unknown action, not exactly one of onExitCodes/onPodConditions, bad operator, values not 1..255 sorted unique (no 0 with In), containerName not in the template, bad condition type or status, more than 20 patterns.",
		serverRejects, "Follow the message: each rule needs an action and exactly one of onExitCodes {operator, values} or onPodConditions [{type, status}]."},
	{jobspec.RulePodReplacementPolicy, SeverityError, "podReplacementPolicy unknown, or not Failed while a podFailurePolicy is set.",
		serverRejects, "Use Failed (required with a podFailurePolicy) or TerminatingOrFailed."},
	{jobspec.RuleRestartPolicy, SeverityError, "Pod template restartPolicy missing or Always, unknown, or not Never while a podFailurePolicy is set.",
		serverRejects + " (An empty restartPolicy defaults to Always, which Jobs do not allow.)", "Set spec.template.spec.restartPolicy: Never."},
	{jobspec.RuleSuccessPolicy, SeverityError, "successPolicy malformed: on a NonIndexed Job, no or more than 20 rules, a rule with neither succeededIndexes nor succeededCount, indexes not in the interval grammar or not below completions, succeededCount above completions or above the indexes listed.",
		serverRejects, "Each rule needs succeededIndexes (\"0,2-5\", increasing, < completions) and/or succeededCount (<= completions)."},
	{jobspec.RuleSuccessPolicyCrash, SeverityError, "Indexed Job with parallelism set, completions unset and a successPolicy rule.",
		"The v" + version.Kubernetes + " API server dereferences the missing completions while validating the successPolicy and panics: the client gets an HTTP/2 stream INTERNAL_ERROR instead of a validation message. The object is not created.", "Set spec.completions."},
	{jobspec.RuleSelector, SeverityError, "Selector problems: a selector or template labels that conflict with the generated ones (controller-uid, job-name), a selector that does not match the template labels, manualSelector without selector, a selector in a CronJob jobTemplate.",
		serverRejects, "Remove spec.selector and the controller-uid/job-name template labels: the server generates them (an exported manifest carries the old Job's)."},
	{jobspec.RulePodTemplate, SeverityError, "Pod template basics: no containers, container names missing, invalid or duplicated, image missing, bad pull or termination-message policy, ports, env names, volume names and mounts, cpu/memory requests above limits, probes on init containers, ephemeral containers, invalid template labels.",
		serverRejects, "Follow the message; every container needs a unique DNS-label name and an image."},
	{jobspec.RuleCronJob, SeverityError, "CronJob: schedule missing or invalid, TZ in schedule, bad timeZone or concurrencyPolicy, name longer than 52 characters.",
		serverRejects, "Use a standard 5-field cron schedule, the timeZone field for time zones, and a name of at most 52 characters."},

	// Accepted by the server, but hurts at run time.
	{RulePrepareDB, SeverityWarning, "Indexed Job with more than one completion relying on the global backoffLimit (no backoffLimitPerIndex): the \"prepare-db\" mode.",
		"Pod failures in any index add up: backoffLimit+1 of them (" + defaultBackoffLimit + "+1 when unset) fail the whole Job, and the controller then deletes every running pod, killing the healthy shards with them; indexes not yet started never run.",
		"Set backoffLimitPerIndex (e.g. 1 or 2) and maxFailedIndexes, plus a podFailurePolicy that ignores DisruptionTarget; leave backoffLimit unset."},
	{RuleBackoffWithPerIdx, SeverityWarning, "An explicit backoffLimit next to backoffLimitPerIndex, low enough to be reached before the per-index limits.",
		"The global limit is still enforced, first: backoffLimit+1 counted failures across all indexes fail the whole Job and kill every running index, however many retries each index had left.",
		"Remove backoffLimit (with backoffLimitPerIndex it defaults to " + unlimitedBackoffLimit + "), or raise it to at least completions x (backoffLimitPerIndex+1)."},
	{RulePerIndexOnFailure, SeverityWarning, "backoffLimitPerIndex with restartPolicy OnFailure.",
		"The kubelet restarts failing containers in place, so pods rarely fail and per-index counting never sees the failures; only the sum of container restarts is compared with backoffLimit (" + unlimitedBackoffLimit + " by default with per-index), so a crash-looping index restarts until activeDeadlineSeconds, if ever.",
		"Use restartPolicy: Never (required anyway for a podFailurePolicy)."},
	{RuleContainerRestart, SeverityWarning, "A Job's container with its own restartPolicy OnFailure or Always, or restartPolicyRules (ContainerRestartRules, beta in 1.35).",
		"The kubelet restarts that container in place, so its failures never fail the pod: podFailurePolicy, backoffLimitPerIndex and backoffLimit do not see them, and with Always even a successful exit restarts it, so the pod, and the Job, never finish.",
		"Remove the container's restartPolicy (the pod's Never applies) unless in-place restarts are really wanted; then bound the Job with activeDeadlineSeconds."},
	{RuleDeadlineZero, SeverityWarning, "activeDeadlineSeconds: 0.",
		"The Job fails with DeadlineExceeded on its first sync, before any pod is created.", "Remove it or set the real time budget in seconds."},
	{RuleParallelismZero, SeverityWarning, "parallelism: 0.",
		"No pod is ever created; the Job waits forever.", "Set parallelism to the number of indexes to run at once, or use suspend: true to hold a Job back."},
	{RuleSucceededCountZero, SeverityWarning, "A successPolicy rule with succeededCount: 0.",
		"The rule is met by the first index that succeeds (any index, even one outside succeededIndexes): the Job is declared successful and the other indexes are terminated.", "Set succeededCount to the number of indexes that must succeed."},
	{RuleMaxFailedZero, SeverityWarning, "maxFailedIndexes: 0.",
		"The first index that fails (after its per-index retries) fails the whole Job and kills every running index: the same blast radius as the prepare-db mode, only later.", "Set maxFailedIndexes to the number of shards you can afford to lose and re-run."},
	{RuleMaxFailedUnset, SeverityWarning, "backoffLimitPerIndex without maxFailedIndexes.",
		"Every index always runs to its end, each with all its retries, even when all fail for the same reason (a bad image, a broken input): the Job is marked Failed only after the last index finished, having burnt the whole budget.", "Set maxFailedIndexes, for example to half of completions, rounded down (what kubectl indexed create sets), so that a systematic failure stops the Job early."},
	{RuleMaxFailedNoEffect, SeverityWarning, "maxFailedIndexes equal to completions.",
		"The Job fails on maxFailedIndexes only when more indexes fail than there are: the limit can never be reached, as if it were unset.", "Set it below completions, to the number of shards you can afford to lose."},
	{RuleTTLTooShort, SeverityWarning, "ttlSecondsAfterFinished below 3600 (one hour).",
		"When the TTL expires the Job is deleted with its pods: completedIndexes, failedIndexes, the conditions with their reason, and every pod log go with it. Reconciling a run (which shards failed, why, what to re-run) happens after an alert is seen, rarely within the hour.",
		"Use at least 3600 (a day, 86400, is safer), or collect the status and logs automatically before the TTL expires."},
	{RuleNoDisruptionIgnore, SeverityWarning, "Indexed Job without a podFailurePolicy rule that ignores the DisruptionTarget condition.",
		"Preemption, eviction, node drain and taint-based eviction fail pods with DisruptionTarget=True; without an Ignore rule each counts against backoffLimit or the index's backoffLimitPerIndex, so cluster maintenance uses up retry budget meant for real failures.",
		"Add a first podFailurePolicy rule {action: Ignore, onPodConditions: [{type: DisruptionTarget}]} (requires restartPolicy: Never)."},
	{RuleDisruptionShadowed, SeverityWarning, "An Ignore rule for DisruptionTarget placed after an onExitCodes rule that a disrupted pod can match.",
		"Rules are evaluated in order and the first match wins: a pod killed by eviction or preemption usually exits 137 or 143, so an earlier rule matching those codes (NotIn, or In with them) decides before the Ignore rule is reached.",
		"Move the DisruptionTarget Ignore rule first."},
	{RuleFailJob, SeverityWarning, "A FailJob podFailurePolicy rule in an Indexed Job with more than one completion.",
		"One pod of one index matching the rule fails the whole Job and kills every running index; the index is not even recorded in failedIndexes.",
		"Use action FailIndex (with backoffLimitPerIndex) so that only that index fails and the others finish."},
	{RuleSuccessPartial, SeverityWarning, "A successPolicy that declares the Job successful before every index succeeded.",
		"When a rule is met the Job becomes Complete (SuccessCriteriaMet, reason SuccessPolicy), the remaining indexes are terminated and not counted as failed: anything that only checks Complete treats the missing shards as done, and incomplete results pass as complete.",
		"Remove the successPolicy unless partial results are really the goal (a leader index, any-of-N); then make the consumer check completedIndexes."},
	{RuleTerminatingOrFail, SeverityWarning, "backoffLimitPerIndex with podReplacementPolicy TerminatingOrFailed (explicit, or the default without a podFailurePolicy).",
		"A pod being deleted (eviction, preemption, node drain) counts as a failure of its index at once and a replacement starts while the old pod is still terminating: two pods of the same index may run together, and the deletion uses up that index's retries.",
		"Set podReplacementPolicy: Failed (the default once a podFailurePolicy is set)."},
	{jobspec.RuleLargeIndexedJob, SeverityWarning, "Indexed Job with more than 100000 completions and parallelism above 10000 (the API server's own warning).",
		"The server warns that it might not be able to track completedIndexes when many indexes fail.", "Lower parallelism to 10000 or split the work."},
	{jobspec.RuleNameNotDNSLabel, SeverityWarning, "Job name that is not a DNS label, e.g. containing dots (the API server's own warning).",
		"The name is used in pod names and hostnames, which can result in surprising behaviour.", "Use lowercase letters, digits and '-', at most 63 characters."},
	{RuleManagedExternally, SeverityWarning, "managedBy naming a controller other than kubernetes.io/job-controller.",
		"The built-in Job controller ignores the Job entirely: no pod is created and no status is written unless that controller (for example MultiKueue) is installed and running.", "Remove managedBy unless the named controller runs in the cluster."},
	{RuleKubeVersion, SeverityWarning, "A field that the target --kube-version lacks (an error: that version's API server rejects it) or has behind a feature gate that is off by default (warning; info when only beta).",
		"Before the feature existed the server rejects the field as unknown (strict validation); while its gate is off it drops the field silently and the Job runs without it, e.g. without per-index limits.",
		"Target a newer cluster, or express the Job without the field."},
	{RuleCronJobIndexHostname, SeverityWarning, "CronJob whose Indexed jobTemplate gives Jobs a name too long for their highest index.",
		"The CronJob is accepted, but the controller names each Job <cronjob-name>-<8 digits>, and the API server rejects a Job whose <name>-<completions-1> is not a 63-character DNS label: every scheduled run fails to create its Job.",
		"Shorten the CronJob name so that name + 9 + 1 + digits of completions-1 stays within 63 characters."},
	{RuleImageNoDigest, SeverityInfo, "Container image without a digest (@sha256:...).",
		"A tag can move while a Job runs: retried or late indexes may pull a different image than the first ones, and shards computed by different code end up in one result.",
		"Pin images by digest for runs whose results must be comparable."},
	{RuleSingleIndex, SeverityInfo, "Indexed Job with completions: 1.",
		"A single index gains nothing from Indexed mode except the JOB_COMPLETION_INDEX variable (always 0).", "Drop completionMode, or raise completions."},
	{RuleSuspended, SeverityInfo, "suspend: true.",
		"The Job is created suspended: no pod runs until someone sets suspend: false.", "Resume it with kubectl patch, or remove suspend."},
	{RuleSkippedKind, SeverityInfo, "An object that is neither a Job nor a CronJob.",
		"lint checks Jobs and CronJobs only; the object is skipped.", "Nothing to do."},
}

var rulesByID = func() map[string]Rule {
	m := make(map[string]Rule, len(rules)+len(kueueRules))
	for _, r := range append(rules, kueueRules...) {
		m[r.ID] = r
	}
	return m
}()

// Rules returns every rule, in documentation order.
func Rules() []Rule { return append(append([]Rule(nil), rules...), kueueRules...) }

// LookupRule returns the rule with id.
func LookupRule(id string) (Rule, bool) {
	r, ok := rulesByID[id]
	return r, ok
}
