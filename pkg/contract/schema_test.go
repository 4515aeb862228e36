package contract_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
)

const schemaDir = "../../docs/schemas"

// schemaTypes maps each schema of docs/schemas to the Go type the plugin reads it into.
var schemaTypes = map[string]reflect.Type{
	"shardreceipt.v1alpha1.json":        reflect.TypeFor[receipt.Receipt](),
	"shardreceiptsummary.v1alpha1.json": reflect.TypeFor[receipt.Summary](),
}

// TestSchemasMatchTheTypes: every JSON Schema in docs/schemas describes its Go type field for
// field, at every depth: each property is a JSON field of the type and each JSON field is a
// property; an object is closed (additionalProperties: false, as the reader is strict); a
// required property is one the plugin always writes (not omitempty), and a field it always
// writes is required unless the schema says why not (a default, or an anyOf of requireds);
// and each property has the JSON type of its field.
func TestSchemasMatchTheTypes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in %s: %v", schemaDir, err)
	}
	c := &schemaCheck{docs: map[string]map[string]any{}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c.docs[filepath.Base(f)] = doc
	}
	for name := range c.docs {
		typ, ok := schemaTypes[name]
		if !ok {
			t.Errorf("%s/%s: no Go type is checked against it: add it to schemaTypes", schemaDir, name)
			continue
		}
		c.file = name
		c.node(name, c.docs[name], typ)
	}
	for _, p := range c.problems {
		t.Error(p)
	}
}

type schemaCheck struct {
	docs     map[string]map[string]any
	file     string // the file the node being checked is in, for its "#/..." references
	problems []string
}

func (c *schemaCheck) fail(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// resolve follows s's $ref, in its file or in another of docs/schemas.
func (c *schemaCheck) resolve(path string, s map[string]any) map[string]any {
	ref, ok := s["$ref"].(string)
	if !ok {
		return s
	}
	file, pointer, _ := strings.Cut(ref, "#")
	if file != "" {
		c.file = file
	}
	m := c.docs[c.file]
	for _, part := range strings.FieldsFunc(pointer, func(r rune) bool { return r == '/' }) {
		next, ok := m[part].(map[string]any)
		if !ok {
			c.fail(path, "$ref %q does not resolve", ref)
			return map[string]any{}
		}
		m = next
	}
	if m == nil {
		c.fail(path, "$ref %q does not resolve", ref)
		return map[string]any{}
	}
	return m
}

// field is one JSON field of a struct.
type field struct {
	typ       reflect.Type
	omitEmpty bool
}

// jsonFields returns the JSON fields of struct type t as encoding/json writes them: embedded
// structs without a name are flattened, "-" and unexported fields are left out.
func jsonFields(t reflect.Type) map[string]field {
	out := map[string]field{}
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = field{typ: f.Type, omitEmpty: slices.Contains(strings.Split(opts, ","), "omitempty")}
	}
	return out
}

func stringsOf(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// node checks schema s against Go type t.
func (c *schemaCheck) node(path string, s map[string]any, t reflect.Type) {
	file := c.file
	defer func() { c.file = file }()
	s = c.resolve(path, s)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := jsonType(t)
	if got := schemaType(s); got != "" && got != want {
		c.fail(path, "the schema says %s, the Go type %s is %s", got, t, want)
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		if s["format"] != "date-time" {
			c.fail(path, "a time: want format date-time")
		}
	case t.Kind() == reflect.Struct:
		c.object(path, s, t)
	case t.Kind() == reflect.Slice:
		items, ok := s["items"].(map[string]any)
		if !ok {
			c.fail(path, "an array without items")
			return
		}
		c.node(path+"[]", items, t.Elem())
	}
}

// object checks the properties of schema s against the JSON fields of struct type t.
func (c *schemaCheck) object(path string, s map[string]any, t reflect.Type) {
	props, _ := s["properties"].(map[string]any)
	fields := jsonFields(t)
	if s["additionalProperties"] != false {
		c.fail(path, "an object of %s without additionalProperties: false (the reader refuses unknown fields)", t)
	}
	for name := range props {
		if _, ok := fields[name]; !ok {
			c.fail(path+"."+name, "in the schema, not a JSON field of %s", t)
		}
	}
	required := stringsOf(s["required"])
	var either []string // the properties of "anyOf": [{"required": [...]}, ...]
	alts, _ := s["anyOf"].([]any)
	for _, alt := range alts {
		if m, ok := alt.(map[string]any); ok {
			either = append(either, stringsOf(m["required"])...)
		}
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f := fields[name]
		p, ok := props[name].(map[string]any)
		if !ok {
			c.fail(path+"."+name, "a JSON field of %s, not in the schema", t)
			continue
		}
		c.node(path+"."+name, p, f.typ)
		if _, hasRequired := s["required"]; !hasRequired {
			continue
		}
		isRequired := slices.Contains(required, name)
		_, hasDefault := p["default"]
		switch {
		case isRequired && f.omitEmpty:
			c.fail(path+"."+name, "required by the schema, but omitempty in %s: the plugin may leave it out", t)
		case !isRequired && !f.omitEmpty && !hasDefault && !slices.Contains(either, name):
			c.fail(path+"."+name, "always written by %s, but neither required nor given a default by the schema", t)
		}
	}
	for _, name := range required {
		if _, ok := fields[name]; !ok {
			c.fail(path+"."+name, "required by the schema, not a JSON field of %s", t)
		}
	}
}

// jsonType is the JSON Schema type of the values of Go type t.
func jsonType(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "string"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "integer"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "number"
	case t.Kind() == reflect.Slice:
		return "array"
	case t.Kind() == reflect.Struct || t.Kind() == reflect.Map:
		return "object"
	}
	return t.Kind().String()
}

// schemaType is the type schema s states: its "type", or that of its const or enum values.
func schemaType(s map[string]any) string {
	if typ, ok := s["type"].(string); ok {
		return typ
	}
	value, ok := s["const"]
	if enum, isEnum := s["enum"].([]any); !ok && isEnum && len(enum) > 0 {
		value, ok = enum[0], true
	}
	if !ok {
		return ""
	}
	switch value.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		return "number"
	}
	return "object"
}
