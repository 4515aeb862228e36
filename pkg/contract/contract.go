// Package contract is the one home of the plugin's JSON contract: the apiVersion every
// machine-readable object carries, and the kind of each. The packages that build the objects
// (pkg/lint, pkg/indexstatus, ...) take their constants from here, and a test keeps
// docs/contracts.md listing every kind, so a new kind cannot ship undocumented.
package contract

// APIVersion is the apiVersion of every object the plugin reads or writes.
const APIVersion = "indexed.kubectl.io/v1alpha1"

// The kinds, one per object.
const (
	LintReport           = "LintReport"
	JobDiff              = "JobDiff"
	IndexedJobStatus     = "IndexedJobStatus"
	IndexedJobLineage    = "IndexedJobLineage"
	IndexedJobList       = "IndexedJobList"
	ShardManifest        = "ShardManifest"
	ShardManifestSummary = "ShardManifestSummary"
	// ShardManifestSummaryList holds the summaries of several files.
	ShardManifestSummaryList = ShardManifestSummary + "List"
	ShardTable               = "ShardTable"
	ShardReceipt             = "ShardReceipt"
	ShardReceiptSummary      = "ShardReceiptSummary"
	ReconcileReport          = "ReconcileReport"
	SimulationReport         = "SimulationReport"
	SimulationComparison     = "SimulationComparison"
	// PodRecord is the header of the terminal pods status --record keeps.
	PodRecord = "PodRecord"
)
