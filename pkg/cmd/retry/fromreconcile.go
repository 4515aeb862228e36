package retry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// maxReportBytes bounds the reconcile report read (a 100,000-shard report takes some tens of MB).
const maxReportBytes = 256 << 20

// rerunStates are the reconcile states whose shards --from-reconcile re-runs: no usable
// receipt, whatever the pod's exit code said.
var rerunStates = []reconcile.State{reconcile.StateMissing, reconcile.StatePartial, reconcile.StateRejected, reconcile.StateNotEvaluated}

// readReport reads --from-reconcile (a file, or - for stdin), before any request: a report
// that cannot be read is a usage error.
func (o *Options) readReport() error {
	// The shared bounded reader: a regular file or stdin, never a FIFO or a device (which would
	// block or never end), at most maxReportBytes.
	var b []byte
	var err error
	if o.FromReconcile == "-" {
		b, err = source.ReadAllBounded(o.In, maxReportBytes)
	} else {
		b, err = source.ReadFile(o.FromReconcile, maxReportBytes)
	}
	if err != nil {
		return exitcode.UsageError("--from-reconcile %s: %w (give the output of kubectl indexed reconcile -o json saved to a file, or - for stdin)", o.FromReconcile, err)
	}
	rep := &reconcile.Report{}
	if err := json.Unmarshal(b, rep); err != nil {
		return exitcode.UsageError("--from-reconcile %s: not the JSON of kubectl indexed reconcile -o json: %v", o.FromReconcile, err)
	}
	if rep.Kind != reconcile.Kind {
		return exitcode.UsageError("--from-reconcile %s: kind %q, not %q (give the output of kubectl indexed reconcile -o json)", o.FromReconcile, rep.Kind, reconcile.Kind)
	}
	o.report = rep
	return nil
}

// reportIndexes are the root indexes the report says to re-run, as an --indexes list for
// root, after checking that the report is about root's manifest.
func (o *Options) reportIndexes(root *batchv1.Job, pl *lineage.Lineage) (string, error) {
	rep := o.report
	if pl != nil {
		return "", exitcode.UsageError("--from-reconcile re-runs shards by their root index: give the root Job %q, not its retry %q", pl.RootJob, root.Name)
	}
	if want := shards.RecordedHash(root); want != "" && rep.Manifest.Hash != want {
		return "", exitcode.UsageError("--from-reconcile %s is about manifest hash %q, but job %q ran %q: run reconcile again for this Job; nothing was created", o.FromReconcile, rep.Manifest.Hash, root.Name, want)
	}
	if want := root.Annotations[shards.AnnotationManifestRevision]; want != "" && rep.Manifest.Revision != want {
		return "", exitcode.UsageError("--from-reconcile %s is about manifest revision %q, but job %q ran revision %q; nothing was created", o.FromReconcile, rep.Manifest.Revision, root.Name, want)
	}
	if len(rep.Jobs) > 0 && rep.Jobs[0].UID != "" && rep.Jobs[0].UID != string(root.UID) {
		return "", exitcode.UsageError("--from-reconcile %s was made for job %q (UID %s), not this job %q (UID %s); nothing was created", o.FromReconcile, rep.Jobs[0].Name, rep.Jobs[0].UID, root.Name, root.UID)
	}
	var b indexes.Builder
	var ids []string
	n := 0
	if c := root.Spec.Completions; c != nil {
		n = int(*c)
	}
	for _, s := range rep.Shards {
		// A report reconcile did not write (edited, or another tool's) is refused, not
		// read around: an index or a state it cannot have would silently drop a shard.
		if s.Index < 0 || s.Index >= n {
			return "", exitcode.UsageError("--from-reconcile %s: shard %q has index %d, but job %q has indexes 0 to %d; nothing was created", o.FromReconcile, s.ShardID, s.Index, root.Name, n-1)
		}
		if !slices.Contains(reconcile.States, s.State) {
			return "", exitcode.UsageError("--from-reconcile %s: shard %d (%s) has state %q, not one of reconcile's (%s); nothing was created", o.FromReconcile, s.Index, s.ShardID, s.State, stateNames())
		}
		if slices.Contains(rerunStates, s.State) {
			b.Add(s.Index)
			if len(ids) < 10 {
				ids = append(ids, fmt.Sprintf("%d (%s, %s)", s.Index, s.ShardID, s.State))
			}
		}
	}
	set := b.Set()
	if set.IsEmpty() {
		return "", exitcode.UsageError("nothing to retry: --from-reconcile %s has no shard missing, partial, rejected or not evaluated (%s); nothing was created", o.FromReconcile, rep.Verdict)
	}
	_, _ = fmt.Fprintf(o.ErrOut, "from the reconcile report: %d %s to re-run: %s\n", set.Len(), textwrap.Plural(set.Len(), "shard", "shards"), strings.Join(ids, ", "))
	return set.String(), nil
}

// stateNames lists reconcile's shard states, for a message.
func stateNames() string {
	names := make([]string, len(reconcile.States))
	for i, st := range reconcile.States {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}
