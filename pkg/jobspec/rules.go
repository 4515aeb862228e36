package jobspec

// IDs of the lint rules whose findings this package produces: every one means "the mirrored API
// server (pkg/version) rejects this object". pkg/lint documents them (why, fix) in its rule registry.
const (
	RuleObjectMetadata       = "object-metadata"
	RuleJobNameTooLong       = "job-name-too-long"
	RuleIndexHostname        = "index-hostname"
	RuleNegativeValue        = "negative-value"
	RuleCompletionMode       = "completion-mode"
	RuleIndexedCompletions   = "indexed-completions-required"
	RuleIndexedLimits        = "indexed-limits"
	RulePerIndexNeedsIndexed = "per-index-requires-indexed"
	RuleMaxFailedIndexes     = "max-failed-indexes"
	RuleManagedBy            = "managed-by"
	RuleFailIndexNeedsPerIdx = "fail-index-requires-per-index"
	RulePodFailurePolicy     = "pod-failure-policy"
	RulePodReplacementPolicy = "pod-replacement-policy"
	RuleRestartPolicy        = "restart-policy"
	RuleSuccessPolicy        = "success-policy"
	RuleSuccessPolicyCrash   = "success-policy-crash"
	RuleSelector             = "selector"
	RulePodTemplate          = "pod-template"
	RuleCronJob              = "cronjob"
)
