package shards

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// Read reads a manifest from path ("-" reads stdin).
func Read(path string, stdin io.Reader) (*Manifest, error) {
	if path != source.StdinName {
		// source.Read reads the manifests of a directory; a manifest is one file.
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			return nil, fmt.Errorf("shard manifest %s: is a directory: give the manifest's file (made by 'kubectl indexed shards split')", path)
		}
	}
	docs, err := source.Read([]string{path}, source.Options{Stdin: stdin, MaxBytes: MaxManifestBytes})
	if err != nil {
		return nil, fmt.Errorf("shard manifest %w", err)
	}
	return fromDocs(path, docs)
}

// Parse parses a manifest (YAML or JSON) strictly: unknown or duplicate fields, values of the
// wrong type, and every rule of Validate are errors. name is used in messages. A problem
// found with the manifest is returned as an *Error listing each problem with its line.
func Parse(name string, data []byte) (*Manifest, error) {
	return fromDocs(name, source.Parse(name, data))
}

func fromDocs(name string, docs []source.Document) (*Manifest, error) {
	fail := func(line int, path, format string, a ...any) error {
		return &Error{File: name, Problems: []Problem{{Path: path, Line: line, Message: fmt.Sprintf(format, a...)}}}
	}
	switch len(docs) {
	case 0:
		return nil, fail(0, "", "the file is empty: expected one %s", Kind)
	case 1:
	default:
		return nil, fail(docs[1].Line, "", "the file holds %d documents: expected exactly one %s", len(docs), Kind)
	}
	d := &docs[0]
	if d.Err != nil {
		return nil, fail(0, "", "%v", d.Err)
	}
	if d.Item >= 0 {
		return nil, fail(d.Line, "", "the %s is inside a List: give it on its own, as a single document", Kind)
	}
	ps := &problems{line: d.LineOf}
	if d.APIVersion() != APIVersion || d.Kind() != Kind {
		ps.add("", "expected apiVersion %q and kind %q, found apiVersion %q and kind %q", APIVersion, Kind, d.APIVersion(), d.Kind())
		return nil, &Error{File: name, Problems: ps.list}
	}
	checkTypes(d.Object, ps)
	if len(ps.list) > 0 {
		return nil, &Error{File: name, Problems: ps.list, More: ps.more}
	}
	m := &Manifest{}
	strict, err := d.DecodeStrict(m)
	if err != nil {
		return nil, fail(d.Line, "", "%v", err)
	}
	for _, s := range strict {
		ps.add(strictPath(s), "%s", s)
	}
	m.validate(ps)
	if len(ps.list) > 0 {
		sort.SliceStable(ps.list, func(i, j int) bool { return ps.list[i].Line < ps.list[j].Line })
		return nil, &Error{File: name, Problems: ps.list, More: ps.more}
	}
	return m, nil
}

// strictPath extracts the field path from a strict decoding message such as
// `unknown field "shards[0].name"`, for its line number.
func strictPath(msg string) string {
	i := strings.IndexByte(msg, '"')
	j := strings.LastIndexByte(msg, '"')
	if i < 0 || j <= i {
		return ""
	}
	return msg[i+1 : j]
}

// checkTypes reports values of the wrong type before decoding, with their paths, so that a
// YAML number where a string belongs (`- 001`, which YAML reads as 1) is caught with advice
// rather than as a decoder error, and never silently changed.
func checkTypes(obj map[string]any, ps *problems) {
	if md, ok := obj["metadata"]; ok {
		mm, isMap := md.(map[string]any)
		if !isMap {
			ps.add("metadata", "must be a mapping with name (and optional labels)")
		} else {
			checkString(mm, "name", "metadata.name", ps)
			if l, ok := mm["labels"]; ok && l != nil {
				lm, isMap := l.(map[string]any)
				if !isMap {
					ps.add("metadata.labels", "must be a mapping of label keys to string values")
				}
				for _, k := range slices.Sorted(maps.Keys(lm)) {
					if _, ok := lm[k].(string); !ok {
						ps.add(fmt.Sprintf("metadata.labels[%s]", k), "label values must be strings: quote %s", render(lm[k]))
					}
				}
			}
		}
	}
	if r, ok := obj["revision"]; ok {
		switch v := r.(type) {
		case string:
		case float64:
			if v != float64(int64(v)) || v < 0 {
				ps.add("revision", "must be a string or a whole number: quote it")
			}
		default:
			ps.add("revision", "must be a string: found %s", render(r))
		}
	}
	s, ok := obj["shards"]
	if !ok || s == nil {
		return
	}
	list, isList := s.([]any)
	if !isList {
		ps.add("shards", "must be a list of shards, each with an id and a list of cases")
		return
	}
	for i, it := range list {
		sp := fmt.Sprintf("shards[%d]", i)
		sm, isMap := it.(map[string]any)
		if !isMap {
			ps.add(sp, "must be a mapping with id and cases, found %s", render(it))
			continue
		}
		checkString(sm, "id", sp+".id", ps)
		c, ok := sm["cases"]
		if !ok || c == nil {
			continue
		}
		cl, isList := c.([]any)
		if !isList {
			ps.add(sp+".cases", "must be a list of case IDs, found %s", render(c))
			continue
		}
		for k, cv := range cl {
			switch cv.(type) {
			case string:
			case float64:
				ps.add(fmt.Sprintf("%s.cases[%d]", sp, k), "case IDs must be strings: found %s; quote it (YAML reads 001 as the number 1)", render(cv))
			default:
				ps.add(fmt.Sprintf("%s.cases[%d]", sp, k), "case IDs must be strings: found %s; quote it", render(cv))
			}
		}
	}
}

func checkString(m map[string]any, key, path string, ps *problems) {
	v, ok := m[key]
	if !ok || v == nil {
		return
	}
	if _, ok := v.(string); !ok {
		ps.add(path, "must be a string: found %s; quote it", render(v))
	}
}

func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
