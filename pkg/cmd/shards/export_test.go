package shards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// The fields Polyaxon's schemas define; no Polyaxon server runs here, so the export is held to
// their source:
//   - V1Operation: polyaxon/polyaxon core/polyaxon/polyflow/operations/operation.py (and the
//     generated sdks/js/http_client/v1/docs/V1Operation.md): version, kind ("operation"),
//     name, description, tags, presets, queue, namespace, cache, termination, plugins, params,
//     schedule, events, build, hooks, matrix, joins, dependencies, trigger, conditions,
//     skipOnUpstreamSkip, runPatch, patchStrategy, isPreset, isApproved, template, and exactly
//     one reference of hubRef, dagRef, urlRef, pathRef, component.
//   - V1Mapping: core/polyaxon/polyflow/matrix/mapping.py: kind ("mapping"), values (a list
//     of dictionaries, the params of each run), concurrency (PositiveInt), earlyStopping.
var (
	v1OperationFields = []string{"version", "kind", "name", "description", "tags", "presets", "queue", "namespace", "cache",
		"termination", "plugins", "params", "schedule", "events", "build", "hooks", "matrix", "joins", "dependencies", "trigger",
		"conditions", "skipOnUpstreamSkip", "runPatch", "patchStrategy", "isPreset", "isApproved", "template",
		"hubRef", "dagRef", "urlRef", "pathRef", "component"}
	v1OperationRefs = []string{"hubRef", "dagRef", "urlRef", "pathRef", "component"}
	v1MappingFields = []string{"kind", "values", "concurrency", "earlyStopping"}
)

func writeBigManifest(t *testing.T, n int) (string, *shards.Manifest) {
	t.Helper()
	m := &shards.Manifest{APIVersion: "indexed.kubectl.io/v1alpha1", Kind: "ShardManifest", Metadata: shards.Metadata{Name: "eval"}, Revision: "7"}
	for i := range n {
		// IDs that do not sort like their indexes, so that order is checked, not re-derived.
		m.Shards = append(m.Shards, shards.Shard{ID: fmt.Sprintf("s-%05d", (i*7919)%n), Cases: []string{fmt.Sprintf("case-%d", i)}})
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, m
}

func sortedKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func inSet(set []string, k string) bool {
	for _, s := range set {
		if s == k {
			return true
		}
	}
	return false
}

// On a 10,000-shard manifest: one mapping value per shard, in completion-index order, with the
// shard's ID and the manifest's name, revision and hash; only V1Operation and V1Mapping fields.
func TestExportPolyaxonTenThousandShards(t *testing.T) {
	const n = 10000
	file, m := writeBigManifest(t, n)
	r := run(t, "", "export", file, "--to", "polyaxon", "--concurrency", "50", "--path-ref", "worker.yaml")
	if r.Code != 0 {
		t.Fatalf("exit %d: %v\n%s", r.Code, r.Err, r.Stderr)
	}
	var op map[string]any
	if err := yaml.Unmarshal([]byte(r.Stdout), &op); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	refs := 0
	for _, k := range sortedKeys(op) {
		if !inSet(v1OperationFields, k) {
			t.Errorf("field %q is not a V1Operation field", k)
		}
		if inSet(v1OperationRefs, k) {
			refs++
		}
	}
	if refs != 1 || op["kind"] != "operation" || op["pathRef"] != "worker.yaml" || op["version"] != 1.1 {
		t.Errorf("kind %v, version %v, pathRef %v, %d references (want exactly one)", op["kind"], op["version"], op["pathRef"], refs)
	}
	matrix, _ := op["matrix"].(map[string]any)
	for _, k := range sortedKeys(matrix) {
		if !inSet(v1MappingFields, k) {
			t.Errorf("matrix field %q is not a V1Mapping field", k)
		}
	}
	if matrix["kind"] != "mapping" || matrix["concurrency"] != float64(50) {
		t.Errorf("matrix kind %v concurrency %v", matrix["kind"], matrix["concurrency"])
	}
	values, _ := matrix["values"].([]any)
	if len(values) != n {
		t.Fatalf("%d values for %d shards", len(values), n)
	}
	hash := m.Hash()
	for i, v := range values {
		val, _ := v.(map[string]any)
		want := map[string]any{"shard_index": float64(i), "shard_id": m.Shards[i].ID, "manifest": "eval", "revision": "7", "manifest_hash": hash}
		if len(val) != len(want) {
			t.Fatalf("value %d: keys %v", i, sortedKeys(val))
		}
		for k, w := range want {
			if val[k] != w {
				t.Fatalf("value %d: %s = %v, want %v", i, k, val[k], w)
			}
		}
	}
}

func TestExportErrors(t *testing.T) {
	file, _ := writeBigManifest(t, 3)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", file, "--path-ref", "w.yaml"}, "--to"},
		{[]string{"export", file, "--to", "argo", "--path-ref", "w.yaml"}, "--to polyaxon"},
		{[]string{"export", file, "--to", "polyaxon"}, "exactly one component reference"},
		{[]string{"export", file, "--to", "polyaxon", "--path-ref", "w.yaml", "--concurrency", "4"}, "above the 3 shards"},
		{[]string{"export", file, "--to", "polyaxon", "--path-ref", "w.yaml", "--concurrency", "-1"}, "must be positive"},
		{[]string{"export", file, "--to", "polyaxon", "--path-ref", "w.yaml", "-o", "wide"}, "wide"},
		{[]string{"export", filepath.Join(t.TempDir(), "missing.yaml"), "--to", "polyaxon", "--path-ref", "w.yaml"}, "missing.yaml"},
	} {
		r := run(t, "", c.args...)
		if r.Code != exitcode.Usage || !strings.Contains(r.Stderr+fmt.Sprint(r.Err), c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q: %v %s", c.args, r.Code, c.want, r.Err, r.Stderr)
		}
	}
	// --concurrency 0 leaves the field out; -o json prints the same operation.
	r := run(t, "", "export", file, "--to", "polyaxon", "--hub-ref", "acme/worker:v1", "-o", "json")
	var op map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &op); err != nil || r.Code != 0 {
		t.Fatalf("exit %d, %v\n%s", r.Code, err, r.Stdout)
	}
	if _, ok := op["matrix"].(map[string]any)["concurrency"]; ok || op["hubRef"] != "acme/worker:v1" {
		t.Errorf("json: %v", op)
	}
}
