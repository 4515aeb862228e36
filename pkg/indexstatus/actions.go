package indexstatus

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Actions: the Next entries that are commands to run, made from the same facts as the words.

// Entry kinds of actions.
const (
	// EntryShowLogs: Command prints the logs of the last failed attempt of every failed index.
	EntryShowLogs EntryKind = "ShowLogs"
	// EntryRetryShards: Command re-runs the shards of Indexes (kubectl indexed retry).
	EntryRetryShards EntryKind = "RetryShards"
	// EntryLintPolicy: the Job shares one backoffLimit between its indexes (the prepare-db
	// mode); Command lints it.
	EntryLintPolicy EntryKind = "LintPolicy"
	// EntryRetried: Indexes were re-run by the Jobs of Retries (kubectl indexed retry);
	// Command shows what stands per shard across the lineage.
	EntryRetried EntryKind = "Retried"
	// EntryUnschedulable: the pods of Indexes are Pending because the scheduler cannot place
	// them; Reason is the PodScheduled condition's reason, Text carries its message.
	EntryUnschedulable EntryKind = "Unschedulable"
)

// nsFlag is " -n NS" for commands.
func (b *reportBuilder) nsFlag() string { return namespaceFlag(b.job.Namespace) }

// finishedActions are the commands for a finished Job whose indexes did not all succeed: the
// logs of the failed ones, the retry of the missing ones, and lint when the indexes shared
// one backoffLimit (the prepare-db mode).
func (b *reportBuilder) finishedActions() []Entry {
	var out []Entry
	failed := b.failed
	unfinished := b.unfinishedIx.Set()
	missing := failed.Union(unfinished)
	if missing.IsEmpty() {
		return nil
	}
	// The indexes whose last failed attempt has a pod: failed ones, and unfinished ones whose
	// last attempt failed (what logs --failed shows).
	withPods := failed.Difference(b.failedGone.Set()).Union(b.ownFailure.Set())
	if !withPods.IsEmpty() {
		out = append(out, Entry{Kind: EntryShowLogs, Indexes: withPods,
			Command: fmt.Sprintf("kubectl indexed logs %s%s --failed", b.job.Name, b.nsFlag()),
			Text:    fmt.Sprintf("See why %s failed, from the last failed attempt's log: kubectl indexed logs %s%s --failed", withPods.Named(setWidth), b.job.Name, b.nsFlag())})
	}
	if b.phase != PhaseFailed {
		// Complete through a success policy: the indexes without a result were not needed.
		return out
	}
	_, created := shards.ConfigMapNameFromJob(b.job)
	// What the Job's retries settled or still run is not offered again.
	remaining := missing
	if e, settled, running := b.retried(missing); e != nil {
		out = append(out, *e)
		remaining = missing.Difference(settled).Difference(running)
		if remaining.IsEmpty() {
			return out
		}
		unfinished = unfinished.Intersect(remaining)
	}
	// Nor are the indexes the Job's own podFailurePolicy failed for good (FailIndex, FailJob):
	// re-running the same input fails the same way. retry leaves them out too unless named.
	offered := remaining                                                                      // what the retry command (without --indexes) re-runs
	unretriable := !created && b.job.Spec.ManualSelector != nil && *b.job.Spec.ManualSelector // retry refuses it
	if final, rules := b.r.FailedByPolicy(); !final.Intersect(remaining).IsEmpty() && !unretriable {
		final = final.Intersect(remaining)
		offered = remaining.Difference(final)
		cmd := fmt.Sprintf("kubectl indexed retry %s%s --indexes %s", b.job.Name, b.nsFlag(), remaining)
		why := fmt.Sprintf("%s %s %s failed by the Job's own podFailurePolicy, %s: the Job declares that failure final, and a plain re-run of the same input fails the same way, so %s not offered",
			textwrap.Plural(final.Len(), "Index", "Indexes"), final.Truncated(setWidth), textwrap.Plural(final.Len(), "was", "were"), rules, textwrap.Plural(final.Len(), "it is", "they are"))
		out = append(out, Entry{Kind: EntryFailedByPolicy, Indexes: final, Command: cmd,
			Text: fmt.Sprintf("%s. After fixing %s input, re-run %s deliberately by naming the indexes: %s", why, textwrap.Plural(final.Len(), "its", "their"), textwrap.Plural(final.Len(), "it", "them"), cmd)})
		if offered.IsEmpty() {
			return out
		}
		unfinished = unfinished.Difference(final)
	}
	switch {
	case unretriable:
		out = append(out, Entry{Kind: EntryRetryShards, Indexes: remaining,
			Text: fmt.Sprintf("%s %s %s no result; kubectl indexed retry cannot re-run them: the Job sets manualSelector, so its retries would select each other's pods.",
				textwrap.Plural(remaining.Len(), "Index", "Indexes"), remaining.Truncated(setWidth), textwrap.Plural(remaining.Len(), "has", "have"))})
	default:
		// Any Indexed Job: a Job made by create is retried as one Job over its shard
		// ConfigMap, any other one as a Job per index that sees its original index.
		cmd := fmt.Sprintf("kubectl indexed retry %s%s", b.job.Name, b.nsFlag())
		what := "the failed shards"
		switch {
		case !remaining.Equal(missing):
			what = "the shards no retry settled or runs"
			cmd += " --indexes " + offered.String()
		case !unfinished.IsEmpty():
			cmd += " --indexes missing"
			what = "every shard without a success"
		}
		if !offered.Equal(remaining) {
			// retry leaves the policy's failures out by itself (the same rule, from the pods).
			what = strings.Replace(what, "shards", "shards that used up their retries", 1)
			if what == "every shard without a success" {
				what = "every shard without a success that the policy did not fail"
			}
		}
		as := "a new Job"
		batch := offered
		if !created {
			as = "Jobs of their own, each seeing its original index"
			if offered.Len() > shards.MaxPlainRetryJobs {
				// A retry of a plain Job refuses more indexes than this: offer the first batch.
				batch = offered.First(shards.MaxPlainRetryJobs)
				cmd = fmt.Sprintf("kubectl indexed retry %s%s --indexes %s", b.job.Name, b.nsFlag(), batch)
				as = fmt.Sprintf("Jobs of their own, each seeing its original index, at most %d at a time (or re-create the run with kubectl indexed create --from-job, whose retries are one Job); the first %d", shards.MaxPlainRetryJobs, shards.MaxPlainRetryJobs)
			}
		}
		out = append(out, Entry{Kind: EntryRetryShards, Indexes: batch, Command: cmd,
			Text: fmt.Sprintf("Re-run %s (%s) as %s: %s", what, offered.Truncated(setWidth), as, cmd)})
	}
	if b.pol.Spec.SharedBudget() {
		cmd := fmt.Sprintf("kubectl get job %s%s -o yaml | kubectl indexed lint -f -", b.job.Name, b.nsFlag())
		out = append(out, Entry{Kind: EntryLintPolicy, Command: cmd,
			Text: fmt.Sprintf("Its %d indexes shared one backoffLimit (no backoffLimitPerIndex), so one index's failures failed them all; see what to change before a re-run: %s", b.completions, cmd)})
	}
	return out
}

// unschedulable is one entry per scheduler reason for the indexes whose current pod is Pending
// because the scheduler cannot place it (PodScheduled=False), with the scheduler's message.
func (b *reportBuilder) unschedulable() []Entry {
	type cause struct{ reason, message string }
	groups := map[cause]*indexes.Builder{}
	for i := range b.facts {
		if p := b.facts[i].current; p != nil && p.r().unschedulable != "" {
			k := cause{p.r().unschedulable, p.r().unschedulableMessage}
			if groups[k] == nil {
				groups[k] = &indexes.Builder{}
			}
			groups[k].Add(i)
		}
	}
	var out []Entry
	for _, g := range slices.SortedFunc(maps.Keys(groups), func(a, b cause) int {
		return cmp.Or(strings.Compare(a.reason, b.reason), strings.Compare(a.message, b.message))
	}) {
		s := groups[g].Set()
		msg := cmp.Or(strings.TrimSuffix(g.message, "."), "the scheduler gave no message")
		out = append(out, Entry{Kind: EntryUnschedulable, Reason: g.reason, Indexes: s,
			Text: fmt.Sprintf("The %s of %s cannot be scheduled (PodScheduled=False, %s: %s): %s until a node fits, and no failure is counted meanwhile (activeDeadlineSeconds, if set, still runs).",
				textwrap.Plural(s.Len(), "pod", "pods"), s.Named(setWidth), g.reason, msg, textwrap.Plural(s.Len(), "it stays Pending", "they stay Pending"))})
	}
	return out
}

// notGiven says the pods were not given (offline without --pods-file).
const notGiven = "the pods were not given (--pods-file)"

// podsGone is gone, or notGiven when the report was made without pods.
func (b *reportBuilder) podsGone(gone string) string {
	if b.opts.PodsNotGiven {
		return notGiven
	}
	return gone
}

// retried is the entry naming the Job's retries that re-ran some of missing, with the indexes
// of missing they succeeded and the ones they still run; nil when no retry touched missing.
func (b *reportBuilder) retried(missing indexes.Set) (e *Entry, settled, running indexes.Set) {
	var touched indexes.Set
	var parts []string
	for _, r := range b.opts.Retries {
		mine := r.Indexes.Intersect(missing)
		if mine.IsEmpty() {
			continue
		}
		touched = touched.Union(mine)
		ok := r.Succeeded.Intersect(mine)
		settled = settled.Union(ok)
		var what []string
		if !ok.IsEmpty() {
			what = append(what, ok.Truncated(setWidth/2)+" succeeded")
		}
		if bad := r.Failed.Intersect(mine); !bad.IsEmpty() {
			what = append(what, bad.Truncated(setWidth/2)+" failed")
		}
		if !r.Finished {
			run := mine.Difference(r.Succeeded).Difference(r.Failed)
			running = running.Union(run)
			if !run.IsEmpty() {
				what = append(what, run.Truncated(setWidth/2)+" running")
			}
		}
		parts = append(parts, fmt.Sprintf("%s (attempt %d: %s)", r.Name, r.Attempt, strings.Join(what, ", ")))
	}
	if touched.IsEmpty() {
		return nil, settled, running
	}
	running = running.Difference(settled)
	// The Job's own name: status --lineage of a retry shows its run, with the root gone or a
	// Job of the root's name that is another run.
	cmd := fmt.Sprintf("kubectl indexed status %s%s --lineage", b.job.Name, b.nsFlag())
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more", len(parts)-5))
	}
	return &Entry{Kind: EntryRetried, Indexes: touched, Command: cmd,
		Text: fmt.Sprintf("%s %s %s re-run by %s; what stands per shard: %s",
			textwrap.Plural(touched.Len(), "Index", "Indexes"), touched.Truncated(setWidth), textwrap.Plural(touched.Len(), "was", "were"), strings.Join(parts, "; "), cmd)}, settled, running
}

// EntryFailedByPolicy: the Job's own podFailurePolicy failed Indexes for good (a FailIndex or
// FailJob rule: the user declared that failure final, such as exit code 42 for invalid
// input), so a plain re-run is not offered for them; Command re-runs them deliberately, with
// the others, once their input is fixed.
const EntryFailedByPolicy EntryKind = "FailedByPolicy"

// FailedByPolicy are the indexes of r without a success whose latest failed attempt matched a
// FailIndex or FailJob rule, and the rules in words ("rule 0 (FailIndex: exit code 42 in
// container worker)"): what a retry leaves out unless named, and status does not offer for a
// plain re-run. Those two actions end an index's retries by the user's own declaration,
// rather than by its retries running out: re-running the same input fails the same way.
func (r *IndexedJobStatus) FailedByPolicy() (indexes.Set, string) {
	return r.failedByPolicy, r.policyRules
}

// failedByPolicy is FailedByPolicy, from the builder's facts (every index, listed or not).
func (b *reportBuilder) failedByPolicy() (indexes.Set, string) {
	var bl indexes.Builder
	var rules []string
	seen := map[string]bool{}
	for i := range b.facts {
		f := &b.facts[i]
		lf := f.lastFailed
		if f.state == StateSucceeded || lf == nil || !lf.Match.Is(batchv1.PodFailurePolicyActionFailIndex) && !lf.Match.Is(batchv1.PodFailurePolicyActionFailJob) {
			continue
		}
		bl.Add(f.index)
		w := fmt.Sprintf("rule %d (%s)", lf.Match.Rule, lf.Match.Action)
		if on := lf.r().matchedBy; on != "" {
			w = fmt.Sprintf("rule %d (%s: %s)", lf.Match.Rule, lf.Match.Action, on)
		}
		if !seen[w] {
			seen[w] = true
			rules = append(rules, w)
		}
	}
	return bl.Set(), strings.Join(rules, ", ")
}
