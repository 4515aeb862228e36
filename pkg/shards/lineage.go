package shards

// Lineage keys: a contract between `kubectl indexed retry` (which writes them on the Jobs it
// creates) and the commands that follow a run across its retries (status --lineage, reconcile,
// list). Like the keys in contract.go they are documented in docs/retry.md; never rename one.
//
// A retry Job's completion index k runs the shard that completion index orig[k] of the root
// Job ran. orig is always the k-th element, in ascending order, of the set of root completion
// indexes written in AnnotationOriginalIndexes (a retry picks indexes in ascending order, and a
// retry of a retry composes two ascending maps, so the composition is ascending too and the set
// in interval form, e.g. "2,4,10-19", is the whole map).
//
// A retry writes that set in exactly one of two places: AnnotationOriginalIndexes when it is
// small enough for an annotation, else a key of an immutable ConfigMap of its own, named by
// AnnotationOriginalIndexesFrom (see there).
const (
	// AnnotationRootJob and AnnotationRootJobUID name the first Job of the lineage: the one
	// whose completion indexes the shard manifest was laid out for.
	AnnotationRootJob    = Prefix + "root-job"
	AnnotationRootJobUID = Prefix + "root-job-uid"
	// AnnotationParentJob and AnnotationParentJobUID name the Job this one retries (the root
	// for a first retry, an earlier retry for a retry of a retry).
	AnnotationParentJob    = Prefix + "parent-job"
	AnnotationParentJobUID = Prefix + "parent-job-uid"
	// AnnotationRetryAttempt is the retry's number in its lineage: "1" for the first retry.
	AnnotationRetryAttempt = Prefix + "retry-attempt"
	// AnnotationOriginalIndexes holds the root completion indexes this retry runs, in the
	// interval form of status.completedIndexes; retry index k runs the k-th of them.
	AnnotationOriginalIndexes = Prefix + "original-indexes"
	// AnnotationOriginalIndexesFrom replaces AnnotationOriginalIndexes when the map is too
	// large for an annotation: "<configmap>/<key>", a ConfigMap in the Job's namespace and a
	// key of it. Key KeyOriginalIndexes holds the same interval text in data;
	// KeyOriginalIndexesGzip holds it gzip-compressed in binaryData. The ConfigMap is
	// immutable and its name ends with "-" and the first 10 hex digits of the SHA-256 of the
	// (uncompressed) interval text, so a reader can tell it is the one the retry wrote.
	AnnotationOriginalIndexesFrom = Prefix + "original-indexes-from"
	// KeyOriginalIndexes and KeyOriginalIndexesGzip are the keys of an index-map ConfigMap.
	KeyOriginalIndexes     = "original-indexes"
	KeyOriginalIndexesGzip = "original-indexes.gz"

	// LabelRootJob carries AnnotationRootJob's value on every retry Job, so that one
	// label-selected LIST of Jobs finds a lineage.
	LabelRootJob = Prefix + "root-job"
)
