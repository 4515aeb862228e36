package receipt

import (
	"encoding/json"
	"os"
	"testing"
)

// TestReaderRequiresWhatTheSchemaRequires: a receipt without any one of the fields its JSON
// Schema requires is rejected. (That the schemas and the types name the same fields is
// pkg/contract's TestSchemasMatchTheTypes.)
func TestReaderRequiresWhatTheSchemaRequires(t *testing.T) {
	data, err := os.ReadFile("../../docs/schemas/shardreceipt.v1alpha1.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Required) == 0 {
		t.Fatal("the schema requires nothing: the test cannot tell")
	}
	full := map[string]any{}
	if err := json.Unmarshal(mustJSON(t, validReceipt()), &full); err != nil {
		t.Fatal(err)
	}
	for _, req := range schema.Required {
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
