package jobdiff

import (
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
)

// The conditions, worded once so that reports, help and docs/diff.md say the same thing.
const (
	condTemplate = "the live Job must be suspended (spec.suspend: true) with no active pods, and either never " +
		"started or have the condition Suspended=True; then only container and init container resources, " +
		"node affinity, node selector, tolerations, scheduling gates and the template's metadata " +
		"(labels, annotations) may change"
	condTandem = "an Indexed Job's completions can change only in an update that sets parallelism to the same " +
		"value (new completions == new parallelism)"
	condImmutable = "immutable after creation (set, change and unset are all rejected)"
)

const groupTandem = "completions+parallelism"

// templateConditionalPrefixes are the parts of the pod template that may change while the Job
// is suspended (strategy.go: validationOptionsForJob; validation.go: validatePodTemplateUpdate,
// validatePodResourceUpdatesOnly).
// Each is also the Field of the differences under it.
var templateConditionalPrefixes = []string{
	"spec.template.metadata",
	"spec.template.spec.containers[].resources",
	"spec.template.spec.initContainers[].resources",
	"spec.template.spec.affinity.nodeAffinity",
	"spec.template.spec.nodeSelector",
	"spec.template.spec.tolerations",
	"spec.template.spec.schedulingGates",
}

// classifier holds what the rules look at.
type classifier struct {
	live, desired *batchv1.Job // normalized (defaulted) copies
	// desiredAsGiven is the desired Job as read, for the printed commands that act on its file.
	desiredAsGiven *batchv1.Job
	state          LiveState
	diffs          []Difference
	// drastic maps the paths of changes that would end or delete the live Job at once to why.
	drastic map[string]string
}

// classify sets Field, Class, Condition and HoldsNow of every difference.
func (c *classifier) classify() {
	for i := range c.diffs {
		c.classifyOne(&c.diffs[i])
	}
	// maxFailedIndexes is checked against the completions the Job has after the changes that
	// apply now, so it goes last.
	for i := range c.diffs {
		d := &c.diffs[i]
		if d.Field == "spec.maxFailedIndexes" && d.Class == ClassLive {
			c.checkMaxFailedIndexes(d)
		}
	}
	// A finished Job never takes a conditional change to any effect: the controller does not
	// sync it again (syncJob returns for a finished Job), its terminal condition cannot be
	// removed (job-semantics §2.3, validateJobStatus), so it never gets Suspended=True and its
	// template never becomes mutable (strategy.go: shouldAllowMutablePodTemplate). Only a new
	// Job can have these changes. (One whose condition holds, such as completions in tandem,
	// stays as it is: the API server takes it, to no effect, and --server-dry-run checks just that.)
	if c.state.Finished() {
		for i := range c.diffs {
			if d := &c.diffs[i]; d.Class == ClassConditional && !d.HoldsNow {
				newJob(d, fmt.Sprintf("the Job has finished (%s) and never runs pods again: only a new Job would use this", c.state.Phase))
			}
		}
	}
}

func (c *classifier) classifyOne(d *Difference) {
	p := d.path
	switch {
	case p.hasPrefix("metadata.labels"), p.hasPrefix("metadata.annotations"):
		d.Field = p[0].key + "." + p[1].key
		if identityKey(p) {
			newJob(d, condIdentity)
			return
		}
		live(d)
	case p.hasPrefix("spec.template"):
		c.classifyTemplate(d)
	case len(p) >= 2 && p[0].key == "spec":
		d.Field = "spec." + p[1].key
		c.classifySpec(d, p[1].key)
	default:
		d.Field = p.pattern()
		newJob(d, "not in the mutability table: the API server is assumed to reject the change")
	}
}

func (c *classifier) classifySpec(d *Difference, field string) {
	switch field {
	case "parallelism", "activeDeadlineSeconds", "backoffLimit", "suspend", "ttlSecondsAfterFinished", "manualSelector":
		live(d)
		if field == "parallelism" {
			d.group = groupTandem
		}
	case "completions":
		switch {
		case ptr.Deref(c.live.Spec.CompletionMode, "") != batchv1.IndexedCompletion:
			newJob(d, "completions is immutable for a NonIndexed Job")
		case c.desired.Spec.Completions == nil:
			newJob(d, "an Indexed Job's completions cannot be unset")
		default:
			d.group = groupTandem
			conditional(d, condTandem, ptr.Equal(c.desired.Spec.Completions, c.desired.Spec.Parallelism))
		}
	case "maxFailedIndexes":
		if c.live.Spec.BackoffLimitPerIndex == nil {
			newJob(d, "maxFailedIndexes requires backoffLimitPerIndex, which the live Job does not have and cannot get (backoffLimitPerIndex is immutable)")
			return
		}
		live(d)
	case "podReplacementPolicy":
		if c.live.Spec.PodFailurePolicy != nil && d.Desired != nil && fmt.Sprint(d.Desired) != string(batchv1.Failed) {
			newJob(d, "the live Job has a podFailurePolicy, which allows only podReplacementPolicy: Failed (podFailurePolicy is immutable)")
			return
		}
		live(d)
	case "completionMode", "backoffLimitPerIndex", "podFailurePolicy", "successPolicy", "managedBy", "selector":
		newJob(d, condImmutable)
	case "scheduling":
		if schedulingOnlyMinCountDiffers(c.live.Spec.Scheduling, c.desired.Spec.Scheduling) {
			live(d)
			return
		}
		newJob(d, "immutable after creation except schedulingPolicy.gang.minCount (alpha WorkloadWithJob; servers without the feature drop the field)")
	default:
		newJob(d, "not in the mutability table: the API server is assumed to reject the change")
	}
}

// identityPrefix is the domain of the keys kubectl indexed create writes (shards.Prefix): the
// shard ConfigMap, the manifest's name, revision and hash. They say which manifest the Job runs,
// and the pods mount that manifest's ConfigMap, so changing them on a live Job (or writing them
// onto a plain Job) would make status, retry and label queries lie about what ran.
const identityPrefix = "indexed.kubectl.io/"

// condIdentity is why a change of an identity key needs a new Job.
const condIdentity = "an indexed.kubectl.io/ key names the shard manifest and ConfigMap the Job's pods run: a different manifest always needs a new Job, and the keys are never written onto a Job that was not made with them"

// identityKey says whether p is metadata.labels[K], metadata.annotations[K] or the pod
// template's, with K under identityPrefix.
func identityKey(p fieldPath) bool {
	for i := 0; i+2 < len(p); i++ {
		if p[i].key == "metadata" && (p[i+1].key == "labels" || p[i+1].key == "annotations") {
			return strings.HasPrefix(p[i+2].key, identityPrefix)
		}
	}
	return false
}

func (c *classifier) classifyTemplate(d *Difference) {
	if identityKey(d.path) {
		d.Field = "spec.template.metadata"
		newJob(d, condIdentity)
		return
	}
	for _, prefix := range templateConditionalPrefixes {
		if d.path.hasPrefix(prefix) {
			d.Field = prefix
			conditional(d, condTemplate, c.state.TemplateMutable)
			return
		}
	}
	d.Field = "spec.template"
	newJob(d, "the pod template is immutable except, while the Job is suspended, container resources, node affinity, node selector, tolerations, scheduling gates and the template's metadata")
}

// checkMaxFailedIndexes: maxFailedIndexes must not exceed the completions of the updated Job.
func (c *classifier) checkMaxFailedIndexes(d *Difference) {
	if c.desired.Spec.MaxFailedIndexes == nil {
		return
	}
	mfi := *c.desired.Spec.MaxFailedIndexes
	// Completions once the changes that apply now are made.
	i := slices.IndexFunc(c.diffs, func(o Difference) bool { return o.Field == "spec.completions" })
	tandemHolds := i >= 0 && c.diffs[i].HoldsNow
	completions := c.live.Spec.Completions
	if tandemHolds {
		completions = c.desired.Spec.Completions
	}
	if completions == nil || mfi <= *completions {
		return
	}
	d.group = groupTandem
	conditional(d, fmt.Sprintf("maxFailedIndexes (%d) must not exceed completions, which is %d until completions changes; "+
		"change it in the same update as completions", mfi, *completions), tandemHolds)
}

func schedulingOnlyMinCountDiffers(a, b *batchv1.JobSchedulingConfiguration) bool {
	if a == nil || b == nil {
		return false
	}
	a, b = a.DeepCopy(), b.DeepCopy()
	for _, s := range []*batchv1.JobSchedulingConfiguration{a, b} {
		if s.SchedulingPolicy == nil || s.SchedulingPolicy.Gang == nil {
			return false
		}
		s.SchedulingPolicy.Gang.MinCount = nil
	}
	return equality.Semantic.DeepEqual(a, b)
}

func live(d *Difference) {
	d.Class, d.Condition, d.HoldsNow = ClassLive, "", true
}

func conditional(d *Difference, cond string, holds bool) {
	d.Class, d.Condition, d.HoldsNow = ClassConditional, cond, holds
}

func newJob(d *Difference, why string) {
	d.Class, d.Condition, d.HoldsNow = ClassNewJob, why, false
}

// fieldNames lists the fields of differences, for messages: spec fields by name, and the pod
// template's as one entry with their count, so that the list stays short.
func fieldNames(ds []Difference) string {
	seen := map[string]bool{}
	var names, tmpl []string
	for _, d := range ds {
		if seen[d.Path] {
			continue
		}
		seen[d.Path] = true
		if strings.HasPrefix(d.Path, "spec.template.") {
			tmpl = append(tmpl, d.Path)
		} else {
			names = append(names, d.Path)
		}
	}
	switch {
	case len(tmpl) == 1:
		names = append(names, tmpl[0])
	case len(tmpl) > 1:
		names = append(names, fmt.Sprintf("%d fields of the pod template (spec.template)", len(tmpl)))
	}
	return strings.Join(names, ", ")
}
