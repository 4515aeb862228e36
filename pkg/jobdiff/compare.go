package jobdiff

import (
	"maps"
	"slices"
)

// compareValue walks the normalized live and desired Jobs (a and b, at p) and appends to out
// one Difference per differing field, at the granularity of the mutability table: top-level
// spec fields whole, the pod template and the metadata maps down to their leaves. The order is
// deterministic: map keys sorted, list items in their order.
func compareValue(p fieldPath, a, b any, out *[]Difference) {
	if equalValues(a, b) {
		return
	}
	if stopAt(p) {
		emit(p, a, b, out)
		return
	}
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	// An unset side is walked as an empty map, so that a new map key is reported (and
	// patched) on its own rather than replacing the whole map.
	if aIsMap && isEmpty(b) {
		bm, bIsMap = map[string]any{}, true
	}
	if bIsMap && isEmpty(a) {
		am, aIsMap = map[string]any{}, true
	}
	if aIsMap && bIsMap {
		keys := maps.Clone(am)
		maps.Copy(keys, bm)
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			compareValue(p.child(k), am[k], bm[k], out)
		}
		return
	}
	al, aIsList := a.([]any)
	bl, bIsList := b.([]any)
	if aIsList && bIsList {
		if names, ok := sameNames(al, bl); ok {
			for i, n := range names {
				compareValue(p.item(n), al[i], bl[i], out)
			}
			return
		}
	}
	emit(p, a, b, out)
}

// stopAt says where the comparison stops descending: below the top-level spec fields other
// than the pod template, whose changes the API server judges whole.
func stopAt(p fieldPath) bool {
	return len(p) == 2 && p[0].key == "spec" && p[1].key != "template"
}

// sameNames returns the item names when both lists hold objects with distinct non-empty
// names in the same order (containers, env, volumes ...); such lists are compared item by
// item. Lists that differ in their names or order are compared whole.
func sameNames(a, b []any) ([]string, bool) {
	if len(a) != len(b) || len(a) == 0 {
		return nil, false
	}
	names := make([]string, len(a))
	seen := map[string]bool{}
	for i := range a {
		na, oka := itemName(a[i])
		nb, okb := itemName(b[i])
		if !oka || !okb || na != nb || seen[na] {
			return nil, false
		}
		seen[na] = true
		names[i] = na
	}
	return names, true
}

// namedItem is the position of the item named name in l, or -1.
func namedItem(l []any, name string) int {
	return slices.IndexFunc(l, func(it any) bool {
		n, _ := itemName(it)
		return n == name
	})
}

func itemName(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	n, ok := m["name"].(string)
	return n, ok && n != ""
}

func emit(p fieldPath, live, desired any, out *[]Difference) {
	d := Difference{Path: p.String(), path: p}
	if !isEmpty(live) {
		d.Live = live
	}
	if !isEmpty(desired) {
		d.Desired = desired
	}
	switch {
	case d.Live == nil:
		d.Change = ChangeSet
	case d.Desired == nil:
		d.Change = ChangeUnset
	default:
		d.Change = ChangeModify
	}
	*out = append(*out, d)
}
