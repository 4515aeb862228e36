package lineage

import (
	"cmp"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Selection modes of retry --indexes.
const (
	// SelectFailed: status.failedIndexes (indexes that failed for good).
	SelectFailed = "failed"
	// SelectUnfinished: indexes neither succeeded nor failed (killed, never ran, still running).
	SelectUnfinished = "unfinished"
	// SelectMissing: every index without a success (failed and unfinished).
	SelectMissing = "missing"
)

// RefusalError is a retry the Job's state does not allow (nothing to retry, still running,
// indexes that may still succeed). The message says why and what to do.
type RefusalError struct{ Msg string }

func (e *RefusalError) Error() string { return e.Msg }

func refuse(format string, a ...any) error { return &RefusalError{Msg: fmt.Sprintf(format, a...)} }

// Selection is which indexes of a Job a retry runs.
type Selection struct {
	// Indexes are completion indexes of the Job being retried, ascending.
	Indexes indexes.Set
	// Warnings are worth printing (an explicit index that already succeeded).
	Warnings []string
}

// Select picks the indexes of job that a retry runs. spec is "failed", "unfinished",
// "missing" or an explicit interval list ("2,4,10-19"). A Job still running is refused,
// unless spec is explicit and allowRunning is set: then every index given must already have
// failed for good (it is in status.failedIndexes), so the retry never runs a shard the
// original may still finish.
func Select(job *batchv1.Job, spec string, allowRunning bool) (*Selection, error) {
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || job.Spec.Completions == nil {
		return nil, refuse("job %q is not an Indexed Job: only the indexes of an Indexed Job can be retried", job.Name)
	}
	n := int(*job.Spec.Completions)
	completed, failed := jobpolicy.StatusIndexes(job)
	tracksFailed := job.Spec.BackoffLimitPerIndex != nil
	finished := jobpolicy.JobFinished(job)
	spec = strings.TrimSpace(spec)
	explicit := spec != SelectFailed && spec != SelectUnfinished && spec != SelectMissing
	if !finished && (!explicit || !allowRunning) {
		msg := fmt.Sprintf("job %q is still running (it has no Complete or Failed condition): its unfinished indexes may still succeed, so nothing was created.\n  wait for it:   %s",
			job.Name, shellJoin("kubectl", "indexed", "status", job.Name, "-n", job.Namespace, "--watch"))
		if job.Spec.Suspend != nil && *job.Spec.Suspend {
			// A suspended Job never finishes until it is resumed: waiting for it (status
			// --watch) would never end, so the way on is to resume it, then wait.
			msg = fmt.Sprintf("job %q is suspended (spec.suspend: true): its unfinished indexes do not run and it never finishes until it is resumed, so nothing was created.\n  resume it:     %s\n  then wait:     %s",
				job.Name, shellJoin("kubectl", "patch", "job", job.Name, "-n", job.Namespace, "--type=merge", "-p", `{"spec":{"suspend":false}}`),
				shellJoin("kubectl", "indexed", "status", job.Name, "-n", job.Namespace, "--wait"))
		}
		if !failed.IsEmpty() {
			// Only indexes that failed for good can be retried while it runs; with none, the
			// command would fail, so it is not offered.
			msg += "\n  or retry only the indexes that already failed for good: " +
				shellJoin("kubectl", "indexed", "retry", job.Name, "-n", job.Namespace, "--indexes", failed.String(), "--allow-running")
		}
		return nil, refuse("%s", msg)
	}
	sel := &Selection{}
	switch spec {
	case SelectFailed:
		if !tracksFailed {
			return nil, refuse("job %q has no backoffLimitPerIndex, so the Job controller does not record which indexes failed: use --indexes missing (every index without a success) or an explicit list", job.Name)
		}
		sel.Indexes = failed
	case SelectUnfinished:
		sel.Indexes = completed.Union(failed).Complement(n)
	case SelectMissing:
		sel.Indexes = completed.Complement(n)
	default:
		set, err := indexes.Parse(spec, n)
		if err != nil {
			return nil, fmt.Errorf("--indexes %q: give failed, unfinished, missing, or completion indexes of job %q (0 to %d) such as 2,4,10-19: %w", spec, job.Name, n-1, err)
		}
		if set.IsEmpty() {
			return nil, fmt.Errorf("--indexes is empty: give failed, unfinished, missing, or a list such as 2,4,10-19")
		}
		if !finished {
			if bad := set.Difference(failed); !bad.IsEmpty() {
				return nil, refuse("job %q is still running and %s not failed for good (status.failedIndexes is %q): %s still succeed, so with --allow-running only failed indexes can be retried; nothing was created",
					job.Name, bad.Named(200)+textwrap.Plural(bad.Len(), " has", " have"), failed.Truncated(200), textwrap.Plural(bad.Len(), "it may", "they may"))
			}
		}
		if ok := set.Intersect(completed); !ok.IsEmpty() {
			sel.Warnings = append(sel.Warnings, fmt.Sprintf("%s of job %q already succeeded; %s again as asked", ok.Named(200), job.Name, textwrap.Plural(ok.Len(), "it runs", "they run")))
		}
		sel.Indexes = set
	}
	if sel.Indexes.IsEmpty() {
		hint := ""
		if unfinished := completed.Union(failed).Complement(n); spec == SelectFailed && !unfinished.IsEmpty() {
			hint = fmt.Sprintf(", but %s unfinished (killed or never ran): --indexes unfinished retries %s", unfinished.Named(200)+textwrap.Plural(unfinished.Len(), " is", " are"), textwrap.Plural(unfinished.Len(), "it", "them"))
		}
		return nil, refuse("nothing to retry: job %q has no %s indexes (%d of %d succeeded; failedIndexes %q)%s; nothing was created",
			job.Name, spec, completed.Len(), n, cmp.Or(failed.String(), "-"), hint)
	}
	return sel, nil
}

// shellJoin renders words as a command line for a POSIX shell (textwrap.ShellQuote); an empty
// word (no namespace) is left out with the flag before it.
func shellJoin(words ...string) string {
	var out []string
	for i := 0; i < len(words); i++ {
		if words[i] == "-n" && i+1 < len(words) && words[i+1] == "" {
			i++
			continue
		}
		out = append(out, textwrap.ShellQuote(words[i]))
	}
	return strings.Join(out, " ")
}
