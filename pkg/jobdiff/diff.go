package jobdiff

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

// Options tunes Diff.
type Options struct {
	// Now is the time the live Job's status is judged against (deadlines, TTLs).
	Now time.Time
	// Namespace for the commands of the plan; defaults to the live Job's namespace.
	Namespace string
	// DesiredSource names where the desired Job came from, as given to -f ("-" for stdin).
	// The plan's create command uses it; empty means "the desired manifest".
	DesiredSource string
	// CreateCommand, when set, is the command the plan gives to create the new Job, instead
	// of `kubectl create -f DesiredSource`.
	CreateCommand string
	// DesiredInList says the desired Job came with other objects (the List create prints,
	// with the shard ConfigMap): the plan then prints no command that creates DesiredSource
	// under a new name, which would rename (or re-create) those objects too.
	DesiredInList bool
	// FromJobCreates says `kubectl indexed create NEW --from-job DesiredSource` makes the new
	// Job: DesiredSource is create's List, whose ConfigMap holds the manifest's copy.
	FromJobCreates bool
	// NewName is the name the plan gives the new Job when one is needed and the desired Job
	// has the live Job's name (which stays taken); empty means the first of SuggestNames.
	NewName string
}

// Diff compares the live Job (as the API server returns it, status included) with the
// desired one (a manifest, or a Job as the server returns it) and classifies every
// difference. Neither Job is modified.
func Diff(live, desired *batchv1.Job, opts Options) (*Report, error) {
	if live == nil || desired == nil {
		return nil, errors.New("both a live and a desired Job are needed")
	}
	nl, err := normalize(live)
	if err != nil {
		return nil, fmt.Errorf("live job %q: %w", live.Name, err)
	}
	nd, err := normalize(desired)
	if err != nil {
		return nil, fmt.Errorf("desired job %q: %w", desired.Name, err)
	}
	pairSelectors(nl, nd)
	ns := cmp.Or(opts.Namespace, live.Namespace)
	c := &classifier{live: nl.job, desired: nd.job, desiredAsGiven: desired, state: StateOf(live), diffs: []Difference{}}
	compareValue(nil, nl.obj, nd.obj, &c.diffs)
	c.classify()

	r := &Report{
		APIVersion:  APIVersion,
		Kind:        Kind,
		Job:         Target{JobRef: contract.JobRef{Name: live.Name, Namespace: ns}},
		Live:        c.state,
		Differences: c.diffs,
		Warnings:    c.warnings(opts.Now),
	}
	if desired.Name != "" && desired.Name != live.Name {
		r.Job.DesiredName = desired.Name
		r.Warnings = append(r.Warnings, Warning{Code: WarnNameDiffers, Side: SideDesired, Path: "metadata.name",
			Message: fmt.Sprintf("the desired Job is named %q, the live one %q: compared anyway", desired.Name, live.Name)})
	}
	if r.Warnings == nil {
		r.Warnings = []Warning{}
	}
	r.Plan, err = c.plan(live, r.Job, opts)
	if err != nil {
		return nil, err
	}
	if r.NeedsNewJob() {
		r.Warnings = append(r.Warnings, c.newJobWarnings(live)...)
	}
	return r, nil
}

// NeedsNewJob reports whether the plan creates a new Job.
func (r *Report) NeedsNewJob() bool {
	return slices.ContainsFunc(r.Plan, func(st Step) bool { return st.Kind == StepNewJob })
}

// HasDifferences reports whether the Jobs differ (exit status 1 of kubectl indexed diff).
func (r *Report) HasDifferences() bool { return len(r.Differences) > 0 }

// Count returns how many differences have class cl.
func (r *Report) Count(cl Class) int {
	n := 0
	for _, d := range r.Differences {
		if d.Class == cl {
			n++
		}
	}
	return n
}
