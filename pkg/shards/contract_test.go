package shards

import (
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConfigMapNameFromJob(t *testing.T) {
	for _, tc := range []struct {
		name   string
		job    *batchv1.Job
		want   string
		wantOK bool
	}{
		{"nil job", nil, "", false},
		{"no annotations", &batchv1.Job{}, "", false},
		{"empty value", &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationShardsConfigMap: ""}}}, "", false},
		{"set", &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationShardsConfigMap: "eval-shards-0123456789"}}}, "eval-shards-0123456789", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ConfigMapNameFromJob(tc.job)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("ConfigMapNameFromJob = %q, %v; want %q, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
	if AnnotationShardsConfigMap != "indexed.kubectl.io/shards-configmap" || KeyShardIDs != "shard-ids.json" {
		t.Fatalf("the contract keys changed: %q %q", AnnotationShardsConfigMap, KeyShardIDs)
	}
}

func TestIDsFromConfigMap(t *testing.T) {
	cm := func(data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: data}
	}
	for _, tc := range []struct {
		name    string
		cm      *corev1.ConfigMap
		want    []string
		wantErr string
	}{
		{"ok", cm(map[string]string{KeyShardIDs: `["a","b-1","c.2"]`}), []string{"a", "b-1", "c.2"}, ""},
		{"empty array", cm(map[string]string{KeyShardIDs: `[]`}), []string{}, ""},
		{"missing key", cm(map[string]string{"other": "x"}), nil, `configmap "cm" has no key "shard-ids.json"`},
		{"not json", cm(map[string]string{KeyShardIDs: `a,b`}), nil, `configmap "cm" key "shard-ids.json": not a JSON array`},
		{"null", cm(map[string]string{KeyShardIDs: `null`}), nil, "null"},
		{"numbers", cm(map[string]string{KeyShardIDs: `[1,2]`}), nil, "not a JSON array of shard IDs"},
		{"duplicate", cm(map[string]string{KeyShardIDs: `["a","b","a"]`}), nil, `index 2: shard ID "a" already used by index 0`},
		{"invalid id", cm(map[string]string{KeyShardIDs: `["a","-b"]`}), nil, `index 1: invalid shard ID "-b"`},
		{"nil", nil, nil, "no configmap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := IDsFromConfigMap(tc.cm)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestManifestCopyIDs: the canonical copy create writes gives its IDs when its hash is the
// Job's; the same manifest written otherwise is parsed and accepted; another manifest is
// refused as replaced or changed; no copy is not an error.
func TestManifestCopyIDs(t *testing.T) {
	m, err := Parse("m", []byte("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: m}\nrevision: 1\nshards:\n- {id: a, cases: [c1]}\n- {id: b, cases: [c2]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cm := func(data string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{KeyManifest: data}}
	}
	for name, data := range map[string]string{
		"canonical": string(m.Canonical()),
		"as YAML":   "apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: m}\nrevision: '1'\nshards:\n- {id: a, cases: [c1]}\n- {id: b, cases: [c2]}\n",
	} {
		ids, ok, err := ManifestCopyIDs(cm(data), m.Hash())
		if err != nil || !ok || strings.Join(ids, ",") != "a,b" {
			t.Errorf("%s: %v %v %v", name, ids, ok, err)
		}
	}
	changed := strings.Replace(string(m.Canonical()), `"c2"`, `"c9"`, 1)
	if _, ok, err := ManifestCopyIDs(cm(changed), m.Hash()); !ok || err == nil || !strings.Contains(err.Error(), "it was replaced or changed") {
		t.Errorf("changed: %v %v", ok, err)
	}
	if ids, ok, err := ManifestCopyIDs(&corev1.ConfigMap{}, m.Hash()); ids != nil || ok || err != nil {
		t.Errorf("no copy: %v %v %v", ids, ok, err)
	}
}
