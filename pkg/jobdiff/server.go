package jobdiff

import (
	"fmt"
	"slices"
	"sort"

	batchv1 "k8s.io/api/batch/v1"
)

// ProbeNow is the name of the probe that applies every change the live Job takes now.
const ProbeNow = "apply now"

// Probe is a dry-run update that checks the classification against the API server: the live
// Job with some of the desired changes applied, and what the classification expects the
// server to do with it.
type Probe struct {
	Name     string
	Paths    []string
	Expected Outcome
	// Job is the live Job with the changes applied, ready for Update with DryRun=All.
	Job   *batchv1.Job
	diffs []Difference
}

// Probes returns the dry-run updates that confirm the report: one with every change that
// holds now (expected accepted), and one per change that does not (expected rejected), with
// the changes that must go in the same update (completions and parallelism). The changes are
// applied to live with the same patches the plan prints.
func (r *Report) Probes(live *batchv1.Job) ([]Probe, error) {
	raw, err := toMap(live)
	if err != nil {
		return nil, err
	}
	var probes []Probe
	now := slices.DeleteFunc(slices.Clone(r.Differences), func(d Difference) bool { return !d.HoldsNow })
	if len(now) > 0 {
		p, err := makeProbe(live, raw, ProbeNow, OutcomeAccepted, now)
		if err != nil {
			return nil, err
		}
		probes = append(probes, p)
	}
	seen := map[string]bool{}
	for _, d := range r.Differences {
		// An identity key is refused by kubectl indexed, not by the server (which takes any
		// annotation): there is nothing for the server to confirm, and it is never sent.
		if d.HoldsNow || identityKey(d.path) {
			continue
		}
		ds := []Difference{d}
		if d.group != "" {
			ds = slices.DeleteFunc(slices.Clone(r.Differences), func(o Difference) bool { return o.group != d.group })
		}
		key := fmt.Sprint(paths(ds))
		if seen[key] {
			continue
		}
		seen[key] = true
		p, err := makeProbe(live, raw, d.Path, OutcomeRejected, ds)
		if err != nil {
			return nil, err
		}
		probes = append(probes, p)
	}
	return probes, nil
}

func makeProbe(live *batchv1.Job, raw map[string]any, name string, expect Outcome, ds []Difference) (Probe, error) {
	patch, err := buildPatch(raw, ds)
	if err != nil {
		return Probe{}, err
	}
	job, err := applyPatch(live, patch)
	if err != nil {
		return Probe{}, err
	}
	return Probe{Name: name, Paths: paths(ds), Expected: expect, Job: job, diffs: ds}, nil
}

// Judge turns the server's answer to a probe into a ProbeResult. returned is the Job the
// dry-run update returned (nil when rejected); rejection is the server's message when it
// rejected the update as invalid ("" when it accepted it).
func (p Probe) Judge(returned *batchv1.Job, rejection string) ProbeResult {
	res := ProbeResult{Name: p.Name, Paths: p.Paths, Expected: p.Expected}
	switch {
	case rejection != "" || returned == nil:
		res.Outcome, res.Message = OutcomeRejected, rejection
	default:
		res.Outcome = OutcomeAccepted
		if dropped := p.dropped(returned); len(dropped) > 0 {
			res.Outcome = OutcomeDropped
			res.Message = fmt.Sprintf("the server accepted the update but did not keep %v", dropped)
		}
	}
	res.Agrees = res.Outcome == res.Expected
	if res.Outcome == OutcomeDropped && res.Expected == OutcomeRejected {
		// A field the server drops (its feature gate is off): the live Job does not get it,
		// as classified, and a new Job would not get it either.
		res.Agrees = true
		res.Message += ": its feature is probably disabled on this server, so a new Job would not get it either"
	}
	return res
}

// dropped lists the paths whose desired value the returned Job does not have.
func (p Probe) dropped(returned *batchv1.Job) []string {
	n, err := normalize(returned)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, d := range p.diffs {
		if !equalValues(valueAt(n.obj, d.path), d.Desired) {
			out = append(out, d.Path)
		}
	}
	sort.Strings(out)
	return out
}

// valueAt returns the value at p in a normalized object, nil where it has none.
func valueAt(obj any, p fieldPath) any {
	cur := obj
	for _, s := range p {
		switch {
		case !s.item:
			m, _ := cur.(map[string]any)
			cur = m[s.key]
		default:
			l, _ := cur.([]any)
			i := namedItem(l, s.key)
			if i < 0 {
				return nil
			}
			cur = l[i]
		}
	}
	return cur
}

// SetServerCheck records the probes' results in the report; results is not nil (diff makes
// it), so that a check without probes has [] in JSON.
func (r *Report) SetServerCheck(results []ProbeResult) {
	sc := &ServerCheck{Probes: results}
	for _, res := range results {
		if !res.Agrees {
			sc.Disagreements++
		}
	}
	r.Server = sc
}
