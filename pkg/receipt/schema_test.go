package receipt

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// jsonFields returns the JSON field names of struct type t, in declaration order.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

type schemaDoc struct {
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
	Defs       map[string]struct {
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"$defs"`
}

func readSchema(t *testing.T, name string) schemaDoc {
	t.Helper()
	data, err := os.ReadFile("../../docs/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var s schemaDoc
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestSchemasMatchTheTypes: the JSON Schemas in docs/schemas name exactly the fields the strict
// reader accepts, so that the documented format and the reader cannot drift apart.
func TestSchemasMatchTheTypes(t *testing.T) {
	r := readSchema(t, "shardreceipt.v1alpha1.json")
	if got, want := keys(r.Properties), sorted(jsonFields(reflect.TypeFor[Receipt]())); !slices.Equal(got, want) {
		t.Errorf("ShardReceipt schema properties %v, type fields %v", got, want)
	}
	for def, typ := range map[string]reflect.Type{"manifest": reflect.TypeFor[ManifestRef](), "job": reflect.TypeFor[JobRef](), "assigned": reflect.TypeFor[Assigned]()} {
		if got, want := keys(r.Defs[def].Properties), sorted(jsonFields(typ)); !slices.Equal(got, want) {
			t.Errorf("$defs.%s properties %v, type fields %v", def, got, want)
		}
	}
	s := readSchema(t, "shardreceiptsummary.v1alpha1.json")
	if got, want := keys(s.Properties), sorted(jsonFields(reflect.TypeFor[Summary]())); !slices.Equal(got, want) {
		t.Errorf("ShardReceiptSummary schema properties %v, type fields %v", got, want)
	}
	// The reader requires what the schemas require: an object without each required field is
	// rejected.
	full := map[string]any{}
	if err := json.Unmarshal(mustJSON(t, validReceipt()), &full); err != nil {
		t.Fatal(err)
	}
	for _, req := range r.Required {
		m := map[string]any{}
		for k, v := range full {
			if k != req {
				m[k] = v
			}
		}
		if _, err := Parse("x", mustJSON(t, m)); err == nil {
			t.Errorf("a receipt without %q is accepted", req)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
