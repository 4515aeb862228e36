package jobdiff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Patch types, as `kubectl patch --type` names them.
const (
	PatchMerge = "merge"
	PatchJSON  = "json"
)

// Patch is a change to the live Job, in the form `kubectl patch` takes.
type Patch struct {
	Type string
	Body []byte
}

// buildPatch returns the patch that brings the differences ds over to the live Job raw (the
// live Job as the server returned it). It is a JSON merge patch when no difference lies inside
// a list item, and a JSON patch (RFC 6902) with the items' positions in the live Job otherwise.
func buildPatch(raw map[string]any, ds []Difference) (Patch, error) {
	if !slices.ContainsFunc(ds, func(d Difference) bool { return d.path.inList() }) {
		body, err := json.Marshal(mergePatch(ds))
		return Patch{Type: PatchMerge, Body: body}, err
	}
	ops, err := jsonPatchOps(raw, ds)
	if err != nil {
		return Patch{}, err
	}
	body, err := json.Marshal(ops)
	return Patch{Type: PatchJSON, Body: body}, err
}

func mergePatch(ds []Difference) map[string]any {
	root := map[string]any{}
	for _, d := range ds {
		cur := root
		for _, s := range d.path[:len(d.path)-1] {
			next, ok := cur[s.key].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[s.key] = next
			}
			cur = next
		}
		cur[d.path[len(d.path)-1].key] = d.Desired // nil (null: remove) when unset
	}
	return root
}

type jsonOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// jsonPatchOps turns differences into add/replace/remove operations on raw. A difference below
// a map the live Job does not have becomes one "add" of that map.
func jsonPatchOps(raw map[string]any, ds []Difference) ([]jsonOp, error) {
	var ops []jsonOp
	adds := map[string]int{} // pointer of an "add" of a new map -> its position in ops
	for _, d := range ds {
		op, err := jsonPatchOp(raw, d)
		if err != nil {
			return nil, err
		}
		switch {
		case op == nil:
		case op.Op == "add":
			if i, ok := adds[op.Path]; ok {
				ops[i].Value = mergeMaps(ops[i].Value, op.Value)
				continue
			}
			adds[op.Path] = len(ops)
			ops = append(ops, *op)
		default:
			ops = append(ops, *op)
		}
	}
	return ops, nil
}

func jsonPatchOp(raw map[string]any, d Difference) (*jsonOp, error) {
	var cur any = raw
	ptr := ""
	for i, s := range d.path {
		if !s.item {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: the live Job has no object at %q", d.Path, ptr)
			}
			tok := ptr + "/" + jsonPointerToken(s.key)
			v, exists := m[s.key]
			if !exists || v == nil {
				if d.Desired == nil {
					return nil, nil // nothing to remove
				}
				if d.path[i:].inList() {
					return nil, fmt.Errorf("%s: the live Job has no list at %q", d.Path, tok)
				}
				return &jsonOp{Op: "add", Path: tok, Value: nestedValue(d.path[i+1:], d.Desired)}, nil
			}
			cur, ptr = v, tok
			continue
		}
		l, ok := cur.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: the live Job has no list at %q", d.Path, ptr)
		}
		idx := namedItem(l, s.key)
		if idx < 0 {
			return nil, fmt.Errorf("%s: the live Job has no such item at %q", d.Path, ptr)
		}
		cur, ptr = l[idx], ptr+"/"+strconv.Itoa(idx)
	}
	if d.Desired != nil {
		return &jsonOp{Op: "replace", Path: ptr, Value: d.Desired}, nil
	}
	return &jsonOp{Op: "remove", Path: ptr}, nil
}

func nestedValue(rest fieldPath, v any) any {
	for i := len(rest) - 1; i >= 0; i-- {
		v = map[string]any{rest[i].key: v}
	}
	return v
}

func mergeMaps(a, b any) any {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return b
	}
	for k, v := range bm {
		am[k] = mergeMaps(am[k], v)
	}
	return am
}

// applyPatch applies p to the live Job as the API server would.
func applyPatch(live *batchv1.Job, p Patch) (*batchv1.Job, error) {
	doc, err := json.Marshal(live)
	if err != nil {
		return nil, err
	}
	var out []byte
	switch p.Type {
	case PatchMerge:
		out, err = jsonpatch.MergePatch(doc, p.Body)
	case PatchJSON:
		var ops jsonpatch.Patch
		ops, err = jsonpatch.DecodePatch(p.Body)
		if err == nil {
			out, err = ops.Apply(doc)
		}
	default:
		err = fmt.Errorf("unknown patch type %q", p.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("apply the %s patch to job %q: %w", p.Type, live.Name, err)
	}
	job := &batchv1.Job{}
	if err := json.Unmarshal(out, job); err != nil {
		return nil, fmt.Errorf("decode the patched job %q: %w", live.Name, err)
	}
	return job, nil
}

// Command renders `kubectl patch job NAME -n NS --type=T -p 'BODY'`.
func (p Patch) Command(name, namespace string) string {
	return "kubectl patch job " + textwrap.ShellQuote(name) + nsFlag(namespace) + " --type=" + p.Type +
		" -p " + textwrap.ShellQuote(string(p.Body))
}
