package jobdiff

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
)

// TestIdentityKeysNeedANewJob: the indexed.kubectl.io/ keys name the manifest and the ConfigMap
// the pods mount (issue 16, item 1). A live Job from manifest A diffed against manifest B, or a
// plain Job diffed against a Job of create, never gets them in a patch: every such change is a
// new-job difference, no patch command carries the prefix, and no probe sends it.
func TestIdentityKeysNeedANewJob(t *testing.T) {
	fromA := func(j *batchv1.Job) {
		j.Annotations = map[string]string{
			"indexed.kubectl.io/shards-configmap":  "m-aaaa",
			"indexed.kubectl.io/manifest-hash":     "aaaa",
			"indexed.kubectl.io/manifest-revision": "1",
			"team":                                 "ml",
		}
		j.Labels = map[string]string{"indexed.kubectl.io/manifest-hash": "aaaa"}
		j.Spec.Template.Labels["indexed.kubectl.io/manifest-hash"] = "aaaa"
	}
	fromB := func(j *batchv1.Job) {
		j.Annotations = map[string]string{
			"indexed.kubectl.io/shards-configmap":  "m-bbbb",
			"indexed.kubectl.io/manifest-hash":     "bbbb",
			"indexed.kubectl.io/manifest-revision": "2",
			"team":                                 "ml-2",
		}
		j.Labels = map[string]string{"indexed.kubectl.io/manifest-hash": "bbbb"}
		j.Spec.Template.Labels["indexed.kubectl.io/manifest-hash"] = "bbbb"
	}
	for name, tc := range map[string]struct{ live, desired func(*batchv1.Job) }{
		"other manifest": {fromA, fromB},
		"plain Job":      {nil, fromB},
		"keys removed":   {fromA, nil},
	} {
		for _, st := range allStates {
			live := liveJob(st, tc.live)
			r, err := Diff(live, desiredJob(tc.desired), Options{Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			identity := 0
			for _, d := range r.Differences {
				if strings.Contains(d.Path, "indexed.kubectl.io/") {
					identity++
					if d.Class != ClassNewJob || d.HoldsNow {
						t.Errorf("%s/%s: %s is %s (holds now %v), want NewJob", name, st, d.Path, d.Class, d.HoldsNow)
					}
				}
			}
			if identity == 0 {
				t.Fatalf("%s/%s: no identity difference found in %v", name, st, r.Differences)
			}
			for _, step := range r.Plan {
				for _, c := range step.Commands {
					if strings.Contains(c, "indexed.kubectl.io") {
						t.Errorf("%s/%s: %s step writes an identity key: %s", name, st, step.Kind, c)
					}
				}
			}
			probes, err := r.Probes(live)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probes {
				for _, path := range p.Paths {
					if strings.Contains(path, "indexed.kubectl.io/") {
						t.Errorf("%s/%s: probe %q sends %s", name, st, p.Name, path)
					}
				}
			}
		}
	}
}
