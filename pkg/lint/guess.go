package lint

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

var indexRE = regexp.MustCompile(`\[[^\]]*\]`)

// duplicateWords says what the YAML parser reports about a key given twice in one mapping,
// without calling the document invalid YAML (kubectl accepts it, keeping the last value): both
// lines, when the document's node tree confirms the first.
func duplicateWords(dup *source.DuplicateKeyError) string {
	if dup.First > 0 && dup.First == dup.Again {
		return fmt.Sprintf("field %q is given twice in one mapping, both on line %d: kubectl keeps the last value", dup.Key, dup.Again)
	}
	if dup.First > 0 {
		return fmt.Sprintf("field %q is given twice in one mapping, at lines %d and %d: kubectl keeps the last value (line %d)", dup.Key, dup.First, dup.Again, dup.Again)
	}
	parserError := dup.Error()
	if key, again, ok := source.DuplicateKeyMessage(parserError); ok {
		return fmt.Sprintf("field %q is given twice in one mapping (again at line %d): kubectl keeps the last value", key, again)
	}
	return strings.Join(strings.Fields(parserError), " ") + ": kubectl keeps the last value"
}

// batchKind is the batch kind a wrong kind was meant to be: "Job" for "job" or "Jobs".
func batchKind(kind string) string {
	k := strings.TrimSuffix(strings.ToLower(kind), "s")
	switch k {
	case "job":
		return "Job"
	case "cronjob":
		return "CronJob"
	}
	return ""
}

// kindTypes are the types of the kinds whose fields didYouMean knows.
var kindTypes = map[string]reflect.Type{"Job": reflect.TypeFor[batchv1.Job](), "CronJob": reflect.TypeFor[batchv1.CronJob]()}

// didYouMean is the field of the object, at the place of the unknown field path (e.g.
// "spec.backoffLimitPerIndx"), whose name is closest to it: at most two edits away, or the
// same but for case. Empty when none is close.
func didYouMean(kind, path string) string {
	t, ok := kindTypes[kind]
	if path == "" || !ok {
		return ""
	}
	segs := strings.Split(indexRE.ReplaceAllString(path, ""), ".")
	for _, seg := range segs[:len(segs)-1] {
		t = fieldType(t, seg)
		if t == nil {
			return ""
		}
	}
	unknown := segs[len(segs)-1]
	best, bestDist := "", 3
	for _, f := range jsonFields(t) {
		name := f.Name
		d := editDistance(strings.ToLower(unknown), strings.ToLower(name))
		if strings.EqualFold(unknown, name) {
			d = 0
		}
		if d < bestDist && d <= max(1, len(unknown)/4) {
			best, bestDist = name, d
		}
	}
	return best
}

// deref follows pointers, slices and maps to the element struct type.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}

// fieldType is the type of the field with JSON name seg in struct t (inlined structs included).
func fieldType(t reflect.Type, seg string) reflect.Type {
	for _, f := range jsonFields(t) {
		if f.Name == seg {
			return deref(f.Type)
		}
	}
	return nil
}

// jsonFields lists the fields of struct t by their JSON names (inlined structs included), in
// order; Name is the JSON name.
func jsonFields(t reflect.Type) []reflect.StructField {
	t = deref(t)
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case name == "" && (strings.Contains(opts, "inline") || f.Anonymous):
			out = append(out, jsonFields(f.Type)...)
		case name != "":
			f.Name = name
			out = append(out, f)
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
