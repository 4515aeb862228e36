package jobdiff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// planSets splits the differences by what it takes to bring them over.
type planSets struct {
	now         []Difference // the live Job takes them now
	drastic     []Difference // the live Job takes them now, and they end or delete it
	tandemLater []Difference // completions (and what goes with it) in two steps
	tmplLater   []Difference // the pod template, after suspending the Job
	newJob      []Difference // only a new Job can have them
	moot        []Difference // the ending live Job takes them, to no effect: a new Job can use them
	// withheld: the live Job would take them now, but it is being replaced: resuming it
	// (spec.suspend true to false) would run its indexes alongside the new Job's.
	withheld []Difference
}

func (c *classifier) sets() planSets {
	var s planSets
	ending := c.state.Ending()
	for _, d := range c.diffs {
		switch {
		case d.HoldsNow && ending && d.Field != "spec.ttlSecondsAfterFinished" && !strings.HasPrefix(d.Field, "metadata."):
			s.moot = append(s.moot, d)
		case d.HoldsNow && c.drastic[d.Path] != "":
			s.drastic = append(s.drastic, d)
		case d.HoldsNow:
			s.now = append(s.now, d)
		case d.Class == ClassConditional && !ending && d.group == groupTandem:
			s.tandemLater = append(s.tandemLater, d)
		case d.Class == ClassConditional && !ending && strings.HasPrefix(d.Field, "spec.template"):
			s.tmplLater = append(s.tmplLater, d)
		default:
			s.newJob = append(s.newJob, d)
		}
	}
	// When a new Job is needed anyway, suspending the old one to change its template is
	// pointless: the template changes go to the new Job. So do the changes a warning calls
	// dangerous on the live Job: on a new Job they are harmless (its deadline counts from its
	// own start, its TTL from its own end, and it has the per-index limit that goes with an
	// unlimited backoffLimit).
	// Changing completions in tandem is pointless too (and a scale-down deletes pods of the
	// Job being replaced).
	if len(s.newJob) > 0 {
		s.newJob = slices.Concat(s.newJob, s.tandemLater, s.tmplLater, s.drastic)
		s.tandemLater, s.tmplLater, s.drastic = nil, nil, nil
		// spec.suspend is one difference at most.
		if i := slices.IndexFunc(s.now, func(d Difference) bool { return d.Field == "spec.suspend" }); i >= 0 && c.state.Suspend {
			s.withheld = []Difference{s.now[i]}
			s.now = slices.Delete(s.now, i, i+1)
		}
	}
	return s
}

func (c *classifier) plan(live *batchv1.Job, ref Target, opts Options) ([]Step, error) {
	raw, err := toMap(live)
	if err != nil {
		return nil, fmt.Errorf("live job %q: %w", live.Name, err)
	}
	s := c.sets()
	name, ns := ref.Name, ref.Namespace
	steps := []Step{} // [] in JSON when there is nothing to do

	if len(s.now) > 0 {
		p, err := buildPatch(raw, s.now)
		if err != nil {
			return nil, err
		}
		desc := "Patch the live Job: it takes these changes as it is."
		if len(s.newJob) > 0 {
			desc = "Meanwhile, the live Job can take these changes (optional: the new Job gets them anyway)."
		}
		steps = append(steps, Step{Kind: StepPatch, Description: desc, Commands: []string{p.Command(name, ns)}, Paths: paths(s.now)})
	}

	// A change a warning calls dangerous is never part of a command of the plan: the step
	// says what it would do and leaves it to the user.
	if len(s.drastic) > 0 {
		var why []string
		for _, d := range s.drastic {
			why = append(why, d.Path+" "+c.drastic[d.Path])
		}
		steps = append(steps, Step{Kind: StepDrastic, Description: "Left out, see the warnings: " +
			strings.Join(why, "; ") + ". Patch it yourself only if that is what you want, or create a new Job that has it.",
			Paths: paths(s.drastic)})
	}

	if len(s.tandemLater) > 0 {
		steps = append(steps, c.tandemStep(name, ns, s.tandemLater))
	}

	if len(s.tmplLater) > 0 {
		st, err := c.templateStep(raw, name, ns, s)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}

	if len(s.newJob) > 0 || len(s.moot) > 0 || len(s.withheld) > 0 {
		steps = append(steps, c.newJobStep(name, ns, ref, s, opts))
	}
	return steps, nil
}

// tandemStep changes completions in two updates: first completions and parallelism both to
// the new completions, then parallelism to its desired value.
func (c *classifier) tandemStep(name, ns string, ds []Difference) Step {
	comp := *c.desired.Spec.Completions
	first := map[string]any{"completions": comp, "parallelism": comp}
	mfiChanges := slices.ContainsFunc(ds, func(d Difference) bool { return d.Field == "spec.maxFailedIndexes" })
	if mfi := c.desired.Spec.MaxFailedIndexes; mfi != nil && mfiChanges {
		first["maxFailedIndexes"] = *mfi
	}
	cmds := []string{mergeCommand(name, ns, map[string]any{"spec": first})}
	desc := fmt.Sprintf("Change completions in tandem: the API server takes a new completions only in an update that sets "+
		"parallelism to the same value, so set both to %d", comp)
	if par := c.desired.Spec.Parallelism; par != nil && *par != comp {
		cmds = append(cmds, mergeCommand(name, ns, map[string]any{"spec": map[string]any{"parallelism": *par}}))
		desc += fmt.Sprintf(", then parallelism to %d", *par)
		if !c.state.Suspend {
			desc += fmt.Sprintf(". Between the two patches the controller may start up to %s at once", textwrap.Count(int(comp), "pod", "pods"))
		}
	}
	return Step{Kind: StepTandem, Description: desc + ".", Commands: cmds, Paths: paths(ds)}
}

// templateStep changes the pod template of a Job that is not suspended yet: suspend, wait for
// the controller to take the pods down, patch, and resume unless the desired Job is suspended.
func (c *classifier) templateStep(raw map[string]any, name, ns string, s planSets) (Step, error) {
	p, err := buildPatch(raw, s.tmplLater)
	if err != nil {
		return Step{}, err
	}
	suspendNow := ptr.Deref(c.desired.Spec.Suspend, false) &&
		slices.ContainsFunc(s.now, func(d Difference) bool { return d.Field == "spec.suspend" })
	var cmds []string
	desc := "Change the pod template: the API server allows it only while the Job is suspended with no active pods. "
	if !c.state.Suspend && !suspendNow {
		cmds = append(cmds, mergeCommand(name, ns, map[string]any{"spec": map[string]any{"suspend": true}}))
		desc += fmt.Sprintf("Suspend it (this deletes its %d active pods; their indexes start again later, "+
			"not counted as failures), ", c.state.Active)
	}
	desc += "wait for the condition Suspended, patch the template"
	cmds = append(cmds, "kubectl wait --for=condition=Suspended job/"+textwrap.ShellQuote(name)+nsFlag(ns), p.Command(name, ns))
	if c.desired.Spec.Suspend == nil || !*c.desired.Spec.Suspend {
		cmds = append(cmds, mergeCommand(name, ns, map[string]any{"spec": map[string]any{"suspend": false}}))
		desc += ", and resume it"
	}
	desc += ". Or leave this Job alone and create a new one."
	return Step{Kind: StepSuspend, Description: desc, Commands: cmds, Paths: paths(s.tmplLater)}, nil
}

func (c *classifier) newJobStep(name, ns string, ref Target, s planSets, opts Options) Step {
	var b strings.Builder
	if len(s.newJob) > 0 {
		fmt.Fprintf(&b, "A new Job is needed for %s. ", fieldNames(s.newJob))
	}
	if len(s.moot) > 0 {
		fmt.Fprintf(&b, "%s is %s: %s would change nothing it does. ",
			name, strings.ToLower(string(c.state.Phase)), fieldNames(s.moot))
	}
	var cmds []string
	switch {
	case c.state.Finished():
		b.WriteString("It has finished: ")
	case c.state.Ending():
		b.WriteString("Once it has finished, ")
	case c.state.Suspend:
		fmt.Fprintf(&b, "%s is suspended: leave it so (resuming it would run its indexes again, alongside the new Job's); ", name)
	default:
		fmt.Fprintf(&b, "Let %s finish, or suspend it", name)
		if c.state.Active > 0 {
			fmt.Fprintf(&b, " (this deletes its %d active pods)", c.state.Active)
		}
		b.WriteString("; then ")
		cmds = append(cmds, mergeCommand(name, ns, map[string]any{"spec": map[string]any{"suspend": true}}))
	}
	newName := cmp.Or(opts.NewName, SuggestNames(name, 1)[0])
	src := opts.DesiredSource
	switch {
	case opts.CreateCommand != "":
		fmt.Fprintf(&b, "create the new Job as %s (or another new name)", newName)
		cmds = append(cmds, opts.CreateCommand)
	case ref.DesiredName != "":
		fmt.Fprintf(&b, "create the new Job, %s, from the desired manifest", ref.DesiredName)
		if src != "" && src != "-" && !opts.DesiredInList {
			cmds = append(cmds, "kubectl create -f "+textwrap.ShellQuote(src)+nsFlag(ns))
		}
	default:
		// The desired manifest names the live Job: kubectl create -f would fail with
		// AlreadyExists (kubectl indexed never deletes a Job), so the command renames it.
		fmt.Fprintf(&b, "create the new Job under a new name, %s here (or choose another): %s stays taken", newName, name)
		switch {
		case opts.DesiredInList && (src == "" || src == "-"):
			fmt.Fprintf(&b, ": save what the create command printed to a file and give it to kubectl indexed create %s --from-job FILE (the shard ConfigMap is shared)", newName)
		case opts.DesiredInList && opts.FromJobCreates:
			// The List create printed (edited or not): create takes its Job and the manifest
			// copy of its ConfigMap, under the new name (kubectl patch --local would patch the
			// ConfigMap too, and print both as one broken document).
			fmt.Fprintf(&b, ", from the Job of %s (the shard ConfigMap is shared)", src)
			cmds = append(cmds, "kubectl indexed create "+textwrap.ShellQuote(newName)+" --from-job "+textwrap.ShellQuote(src)+nsFlag(ns))
		case opts.DesiredInList:
			fmt.Fprintf(&b, ": kubectl indexed create %s --from-job %s --manifest with the manifest create was given (%s holds no copy of it; the shard ConfigMap is shared)", newName, src, src)
		case src != "" && src != "-":
			rename, _ := json.Marshal(renamePatch(c.desiredAsGiven, newName))
			cmds = append(cmds, "kubectl patch --local -f "+textwrap.ShellQuote(src)+" --type=merge -p "+textwrap.ShellQuote(string(rename))+
				" -o yaml | kubectl create -f -"+nsFlag(ns))
		default:
			b.WriteString(": set metadata.name in the desired manifest")
		}
	}
	b.WriteString(". kubectl indexed never deletes a Job.")
	return Step{Kind: StepNewJob, Description: b.String(), Commands: cmds, Paths: paths(append(append(s.newJob, s.moot...), s.withheld...))}
}

// SuggestNames returns k names for a new Job that replaces the Job name: name-2, name-3, ...
// (name-N+1 when name already ends in -N), short enough that the pods' hostnames
// (<name>-<index>) stay DNS labels (validateNameAllowsCompletions allows 63 characters).
func SuggestNames(name string, k int) []string {
	base, n := name, 2
	if i := strings.LastIndexByte(name, '-'); i > 0 && i < len(name)-1 {
		if v, err := strconv.Atoi(name[i+1:]); err == nil && v >= 0 && v < 1000000 && name[i+1] != '0' {
			base, n = name[:i], v+1
		}
	}
	out := make([]string, 0, k)
	for j := 0; j < k; j++ {
		suffix := "-" + strconv.Itoa(n+j)
		// Leave room for -<index> of up to six digits.
		b := base
		if max := 63 - 7 - len(suffix); len(b) > max {
			b = strings.TrimRight(b[:max], "-.")
		}
		out = append(out, b+suffix)
	}
	return out
}

// renamePatch is the merge patch that turns the desired manifest into a new Job named
// newName. A manifest exported with kubectl get -o yaml also holds what the server set: its
// resourceVersion (create refuses it), the generated selector and the controller-uid labels of
// the old Job (create refuses a selector without manualSelector), and the old name in the
// job-name labels; each is removed (null in a merge patch) when present, so that the command
// works on such a file too.
func renamePatch(desired *batchv1.Job, newName string) map[string]any {
	meta := map[string]any{"name": newName}
	patch := map[string]any{"metadata": meta}
	if desired == nil {
		return patch
	}
	for k, present := range map[string]bool{
		"uid": desired.UID != "", "resourceVersion": desired.ResourceVersion != "", "creationTimestamp": !desired.CreationTimestamp.IsZero(),
		"generation": desired.Generation != 0, "managedFields": len(desired.ManagedFields) > 0,
	} {
		if present {
			meta[k] = nil
		}
	}
	strip := func(labels map[string]string) map[string]any {
		out := map[string]any{}
		for _, k := range jobspec.GeneratedLabels {
			if _, ok := labels[k]; ok {
				out[k] = nil
			}
		}
		return out
	}
	if l := strip(desired.Labels); len(l) > 0 {
		meta["labels"] = l
	}
	// With manualSelector the selector and the labels are the user's own.
	manual := desired.Spec.ManualSelector != nil && *desired.Spec.ManualSelector
	spec := map[string]any{}
	if desired.Spec.Selector != nil && !manual {
		spec["selector"] = nil
	}
	if l := strip(desired.Spec.Template.Labels); len(l) > 0 && !manual {
		spec["template"] = map[string]any{"metadata": map[string]any{"labels": l}}
	}
	if len(spec) > 0 {
		patch["spec"] = spec
	}
	if desired.Status.StartTime != nil || len(desired.Status.Conditions) > 0 || desired.Status.Active > 0 || desired.Status.Succeeded > 0 || desired.Status.Failed > 0 {
		patch["status"] = nil
	}
	return patch
}

func mergeCommand(name, ns string, patch map[string]any) string {
	body, _ := json.Marshal(patch) // maps of numbers and booleans always encode
	return Patch{Type: PatchMerge, Body: body}.Command(name, ns)
}

func nsFlag(ns string) string {
	if ns == "" {
		return ""
	}
	return " -n " + textwrap.ShellQuote(ns)
}

func paths(ds []Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Path
	}
	return out
}
