package jobdiff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Warning codes: part of the JSON contract.
const (
	WarnPrepareDBMode            = "PrepareDBMode"
	WarnBackoffLimitWithPerIndex = "BackoffLimitWithPerIndex"
	WarnNoEffectFinished         = "NoEffectFinished"
	WarnNoEffectEnding           = "NoEffectEnding"
	WarnDeadlineExceededNow      = "DeadlineExceededNow"
	WarnTTLNotStarted            = "TTLNotStarted"
	WarnTTLDeletesNow            = "TTLDeletesNow"
	WarnBackoffLimitFailsNow     = "BackoffLimitFailsNow"
	WarnMaxFailedIndexesFailsNow = "MaxFailedIndexesFailsNow"
	WarnUnlimitedRetries         = "UnlimitedRetries"
	WarnCompletionsScaleDown     = "CompletionsScaleDown"
	WarnSuspendKillsPods         = "SuspendKillsPods"
	WarnTemplateOnlyNewPods      = "TemplateOnlyNewPods"
	WarnExternalController       = "ExternalController"
	WarnNameDiffers              = "NameDiffers"
	WarnNewJobRerunsSucceeded    = "NewJobRerunsSucceeded"
	WarnNewJobChangesImage       = "NewJobChangesImage"
)

// warningTitles are the warnings' headings in the text report: what each code means, in words
// (the code, for scripts, and the side are in -o json|yaml; each message says which Job it is
// about).
var warningTitles = map[string]string{
	WarnPrepareDBMode:            "Prepare-db mode",
	WarnBackoffLimitWithPerIndex: "backoffLimit fires before the per-index limits",
	WarnNoEffectFinished:         "The change has no effect",
	WarnNoEffectEnding:           "The change has no effect",
	WarnDeadlineExceededNow:      "Patching fails the Job at once",
	WarnTTLNotStarted:            "The TTL may never start",
	WarnTTLDeletesNow:            "Patching deletes the Job",
	WarnBackoffLimitFailsNow:     "backoffLimit already reached",
	WarnMaxFailedIndexesFailsNow: "Patching fails the Job at once",
	WarnUnlimitedRetries:         "Unlimited retries",
	WarnCompletionsScaleDown:     "Scaling down deletes pods",
	WarnSuspendKillsPods:         "Suspending deletes pods",
	WarnTemplateOnlyNewPods:      "Only new pods get the new template",
	WarnExternalController:       "Another controller manages the Job",
	WarnNameDiffers:              "The names differ",
	WarnNewJobRerunsSucceeded:    "The new Job runs finished shards again",
	WarnNewJobChangesImage:       "The new Job runs another image",
}

// WarningTitle is the heading of a warning in the text report (the code itself for a code
// without one).
func WarningTitle(code string) string { return cmp.Or(warningTitles[code], code) }

func (c *classifier) warnings(now time.Time) []Warning {
	return slices.Concat(policyWarnings(SideLive, c.live), policyWarnings(SideDesired, c.desired), c.effectWarnings(now))
}

// newJobWarnings are about the new Job the plan creates: it runs every index from the start,
// those the live Job already succeeded too, and a changed image makes its results come from
// another build than the live Job's.
func (c *classifier) newJobWarnings(live *batchv1.Job) []Warning {
	var ws []Warning
	total := int(ptr.Deref(c.desired.Spec.Completions, 0))
	done, _ := jobpolicy.StatusIndexes(live)
	if n := done.Len(); n > 0 {
		msg := fmt.Sprintf("the new Job runs all %d indexes from the start, %d of which already succeeded in %q (%s)", total, n, live.Name, done.Truncated(60))
		if n < total {
			msg += fmt.Sprintf(": to run only the others, use kubectl indexed retry %s (it keeps the live Job's pod template)", live.Name)
		}
		ws = append(ws, Warning{Code: WarnNewJobRerunsSucceeded, Side: SideChange, Path: "status.completedIndexes", Message: msg})
	}
	liveImages := map[string]string{}
	for _, ctr := range live.Spec.Template.Spec.Containers {
		liveImages[ctr.Name] = ctr.Image
	}
	for _, ctr := range c.desired.Spec.Template.Spec.Containers {
		if old, ok := liveImages[ctr.Name]; ok && old != ctr.Image {
			msg := fmt.Sprintf("container %q of the new Job runs %s, where %q ran %s", ctr.Name, ctr.Image, live.Name, old)
			if n := done.Len(); n > 0 {
				msg += fmt.Sprintf(": the results of the %d indexes %q succeeded came from the old one", n, live.Name)
			}
			ws = append(ws, Warning{Code: WarnNewJobChangesImage, Side: SideChange,
				Path: fmt.Sprintf("spec.template.spec.containers[name=%s].image", ctr.Name), Message: msg})
		}
	}
	return ws
}

// policyWarnings are about a Job's retry policy, whatever changes: the facts of pkg/jobpolicy in
// the words lint uses for the same Job (lint.PrepareDBMessage, lint.BackoffBesidePerIndexMessage).
func policyWarnings(side string, job *batchv1.Job) []Warning {
	var ws []Warning
	pol := jobpolicy.SpecOf(job)
	if pol.SharedBudget() {
		msg := fmt.Sprintf("the %s Job: %s; backoffLimitPerIndex with maxFailedIndexes lets each index fail on its own", side, lint.PrepareDBMessage(pol))
		if side == SideLive {
			msg += "; backoffLimitPerIndex cannot be added to this Job, it takes a new Job"
		}
		ws = append(ws, Warning{Code: WarnPrepareDBMode, Side: side, Path: "spec.backoffLimit", Message: msg})
	}
	if pol.GlobalLimitFiresFirst() {
		ws = append(ws, Warning{Code: WarnBackoffLimitWithPerIndex, Side: side, Path: "spec.backoffLimit",
			Message: fmt.Sprintf("the %s Job: %s", side, lint.BackoffBesidePerIndexMessage(pol))})
	}
	if mb := job.Spec.ManagedBy; side == SideLive && mb != nil && *mb != batchv1.JobControllerName {
		ws = append(ws, Warning{Code: WarnExternalController, Side: side, Path: "spec.managedBy",
			Message: fmt.Sprintf("the live Job is managed by %q, not the built-in Job controller: whether a change takes effect is up to that controller", *mb)})
	}
	return ws
}

// effectWarnings are about what a change would (or would not) do to the live Job.
func (c *classifier) effectWarnings(now time.Time) []Warning {
	var ws []Warning
	st := c.state
	c.drastic = map[string]string{}
	find := func(field string) *Difference {
		if i := slices.IndexFunc(c.diffs, func(d Difference) bool { return d.Field == field }); i >= 0 {
			return &c.diffs[i]
		}
		return nil
	}

	// Changes to an ending Job, other than its metadata and TTL, change nothing it does.
	if st.Ending() {
		moot := slices.DeleteFunc(slices.Clone(c.diffs), func(d Difference) bool {
			return d.Class == ClassNewJob || d.Field == "spec.ttlSecondsAfterFinished" || strings.HasPrefix(d.Field, "metadata.")
		})
		if len(moot) > 0 {
			code, what := WarnNoEffectFinished, fmt.Sprintf("the Job has finished (%s", st.Phase)
			if !st.Finished() {
				code, what = WarnNoEffectEnding, fmt.Sprintf("the Job is already ending (%s", st.Phase)
			}
			if st.Reason != "" {
				what += ", reason " + st.Reason
			}
			what += ")"
			ws = append(ws, Warning{Code: code, Side: SideChange, Message: fmt.Sprintf(
				"%s and will not run pods again: changing %s has no effect on it", what, fieldNames(moot))})
		}
	}

	spec := &c.desired.Spec
	status := &c.live.Status

	if d := find("spec.activeDeadlineSeconds"); d != nil && spec.ActiveDeadlineSeconds != nil {
		if ran, ok := st.runningSince(now); ok && ran >= time.Duration(*spec.ActiveDeadlineSeconds)*time.Second {
			c.drastic[d.Path] = "fails the Job at once (DeadlineExceeded)"
			ws = append(ws, Warning{Code: WarnDeadlineExceededNow, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
				"the Job has been active for %s, longer than the desired activeDeadlineSeconds (%d): once patched it "+
					"fails at once with DeadlineExceeded and its running pods are killed", ran.Round(time.Second), *spec.ActiveDeadlineSeconds)})
		}
	}

	if d := find("spec.ttlSecondsAfterFinished"); d != nil && spec.TTLSecondsAfterFinished != nil {
		ttl := time.Duration(*spec.TTLSecondsAfterFinished) * time.Second
		switch {
		case st.Phase == PhaseFailing || st.Phase == PhaseSucceeding:
			ws = append(ws, Warning{Code: WarnTTLNotStarted, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
				"the Job is %s but not yet %s: the TTL counts from the terminal condition, which waits until no pod is "+
					"terminating (terminating: %d); if pods are stuck terminating the TTL never starts",
				st.Phase, map[Phase]string{PhaseFailing: "Failed", PhaseSucceeding: "Complete"}[st.Phase], ptr.Deref(status.Terminating, 0))})
		case st.Finished() && st.FinishTime != nil && !st.FinishTime.Add(ttl).After(now):
			c.drastic[d.Path] = "makes the TTL controller delete the Job and its pods at once"
			ws = append(ws, Warning{Code: WarnTTLDeletesNow, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
				"the Job finished at %s, more than %s ago: with ttlSecondsAfterFinished %d the TTL controller deletes the "+
					"Job and its pods as soon as the patch lands", st.FinishTime.UTC().Format(time.RFC3339), ttl, *spec.TTLSecondsAfterFinished)})
		}
	}

	if d := find("spec.backoffLimit"); d != nil && d.HoldsNow && !st.Ending() && spec.BackoffLimit != nil {
		bl := *spec.BackoffLimit
		// syncJob's exceedsBackoffLimit, through jobpolicy: failed > backoffLimit.
		switch left := jobpolicy.SpecOf(c.desired).FailuresToFail() - int64(status.Failed); {
		case left <= 0:
			c.drastic[d.Path] = "fails the Job at once (BackoffLimitExceeded)"
			ws = append(ws, Warning{Code: WarnBackoffLimitFailsNow, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
				"the Job already counts %d failed pods, more than the desired backoffLimit (%d): once patched it fails at "+
					"once with BackoffLimitExceeded and its running pods are killed", status.Failed, bl)})
		case left == 1:
			ws = append(ws, Warning{Code: WarnBackoffLimitFailsNow, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
				"the Job already counts %d failed pods, as many as the desired backoffLimit: the next pod failure fails the Job", status.Failed)})
		}
		if bl == jobpolicy.UnlimitedBackoffLimit && c.live.Spec.BackoffLimitPerIndex == nil {
			c.drastic[d.Path] = "lets failing pods retry without limit (the live Job has no backoffLimitPerIndex)"
			ws = append(ws, Warning{Code: WarnUnlimitedRetries, Side: SideChange, Path: d.Path, Message: fmt.Sprint(jobpolicy.UnlimitedBackoffLimit) + " is the backoffLimit " +
				"that comes with backoffLimitPerIndex; on the live Job, which has no per-index limit, it means failing pods are " +
				"retried without limit"})
		}
	}

	if d := find("spec.maxFailedIndexes"); d != nil && d.Class != ClassNewJob && !st.Ending() && spec.MaxFailedIndexes != nil && status.FailedIndexes != nil {
		// syncJob's MaxFailedIndexesExceeded, through jobpolicy: failed indexes > maxFailedIndexes.
		if _, failed := jobpolicy.StatusIndexes(c.live); int64(failed.Len()) >= jobpolicy.SpecOf(c.desired).FailedIndexesToFail() && jobpolicy.SpecOf(c.desired).FailedIndexesToFail() > 0 {
			n := failed.Len()
			c.drastic[d.Path] = "fails the Job at once (MaxFailedIndexesExceeded)"
			ws = append(ws, Warning{Code: WarnMaxFailedIndexesFailsNow, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
				"%s already failed (%s), more than the desired maxFailedIndexes (%d): once patched the Job "+
					"fails with MaxFailedIndexesExceeded and its running pods are killed", textwrap.Count(n, "index has", "indexes have"), *status.FailedIndexes, *spec.MaxFailedIndexes)})
		}
	}

	if d := find("spec.completions"); d != nil && d.Class != ClassNewJob && !st.Ending() &&
		spec.Completions != nil && c.live.Spec.Completions != nil && *spec.Completions < *c.live.Spec.Completions {
		ws = append(ws, Warning{Code: WarnCompletionsScaleDown, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
			"scaling completions down from %d to %d deletes the pods of indexes %d and above (not counted as failures) and "+
				"drops those indexes from completedIndexes, so succeeded can go down", *c.live.Spec.Completions, *spec.Completions, *spec.Completions)})
	}

	if d := find("spec.suspend"); d != nil && !st.Ending() && !st.Suspend && spec.Suspend != nil && *spec.Suspend && status.Active > 0 {
		ws = append(ws, Warning{Code: WarnSuspendKillsPods, Side: SideChange, Path: d.Path, Message: fmt.Sprintf(
			"suspending deletes the %s; %s again from scratch when the Job is resumed (not counted as failures)",
			textwrap.Count(int(status.Active), "active pod", "active pods"), textwrap.Plural(int(status.Active), "its index starts", "their indexes start"))})
	}

	tmplConditional := slices.ContainsFunc(c.diffs, func(d Difference) bool {
		return d.Class == ClassConditional && strings.HasPrefix(d.Field, "spec.template")
	})
	if tmplConditional && !st.Ending() {
		msg := "pods are made from the template when they are created: "
		switch {
		case status.Succeeded == 1:
			msg += "the index that already succeeded keeps what the old template did and is not run again; "
		case status.Succeeded > 1:
			msg += fmt.Sprintf("the %d indexes that already succeeded keep what the old template did and are not run again; ", status.Succeeded)
		}
		if !st.TemplateMutable {
			msg += "the template can change only while the Job is suspended, and suspending kills the running pods, which then start again with the new template"
		} else {
			msg += "only pods created after the change use the new template"
		}
		ws = append(ws, Warning{Code: WarnTemplateOnlyNewPods, Side: SideChange, Path: "spec.template", Message: msg})
	}
	return ws
}
