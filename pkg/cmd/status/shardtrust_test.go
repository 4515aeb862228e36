package status

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

func sixShards(t *testing.T, lastCase string) *shards.Manifest {
	t.Helper()
	m, err := shards.Parse("m", []byte("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: m}\nrevision: 1\nshards:\n"+
		"- {id: s-0, cases: [a]}\n- {id: s-1, cases: [b]}\n- {id: s-2, cases: [c]}\n- {id: s-3, cases: [d]}\n- {id: s-4, cases: [e]}\n- {id: s-5, cases: ["+lastCase+"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestShardConfigMapReplaced: plain status checks the Job's shard ConfigMap against the Job's
// manifest-hash annotation (as reconcile and retry do) before showing its shard IDs. A
// ConfigMap deleted and made again with changed cases (same name, same labels and annotations,
// same shard IDs) showed its IDs as the Job's (issue 26, item 5); now no IDs are shown, a
// warning on stderr and a note in -o json say that it was replaced or changed, live and
// offline (-f with the ConfigMap, or --shards-file). The exit code is unchanged.
func TestShardConfigMapReplaced(t *testing.T) {
	m := sixShards(t, "f")
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: "seed", Namespace: "ns", Image: "w"})
	if err != nil {
		t.Fatal(err)
	}
	good := objs.ConfigMap.DeepCopy()
	j, pods := seed()
	j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: good.Name, shards.AnnotationManifestHash: m.Hash()}

	// Made again from a manifest whose shard s-5 has other cases, keeping the metadata.
	other, err := scaffold.Build(scaffold.Options{Manifest: sixShards(t, "x"), JobName: "seed", Namespace: "ns", Image: "w"})
	if err != nil {
		t.Fatal(err)
	}
	replaced := good.DeepCopy()
	replaced.Data = other.ConfigMap.Data
	// The IDs edited, the manifest copy left as it was.
	edited := good.DeepCopy()
	edited.Data[shards.KeyShardIDs] = `["s-0","s-1","s-9","s-3","s-4","s-5"]`

	type report struct {
		Indexes []struct {
			ShardID string `json:"shardID"`
		} `json:"indexes"`
		Notes []string `json:"notes"`
	}
	check := func(name string, r result, wantIDs bool) {
		t.Helper()
		var rep report
		if err := json.Unmarshal([]byte(r.out), &rep); err != nil || r.code != 0 || len(rep.Indexes) != 6 {
			t.Fatalf("%s: exit %d: %v\n%s%s", name, r.code, err, r.out, r.errOut)
		}
		notes := strings.Join(rep.Notes, "\n")
		if wantIDs {
			if rep.Indexes[2].ShardID != "s-2" || r.errOut != "" || strings.Contains(notes, "replaced or changed") {
				t.Errorf("%s: index 2 shard %q, stderr %q, notes %q", name, rep.Indexes[2].ShardID, r.errOut, notes)
			}
			return
		}
		for i, ix := range rep.Indexes {
			if ix.ShardID != "" {
				t.Errorf("%s: index %d shows shard ID %q of a replaced ConfigMap", name, i, ix.ShardID)
			}
		}
		if !strings.Contains(notes, "Shard IDs are not shown: configmap \""+good.Name+"\"") || !strings.Contains(notes, "it was replaced or changed") {
			t.Errorf("%s: notes %q", name, notes)
		}
		if !strings.HasPrefix(r.errOut, `warning: job "seed": its shard IDs are not shown: configmap "`+good.Name+`"`) || !strings.Contains(r.errOut, "it was replaced or changed") {
			t.Errorf("%s: stderr %q", name, r.errOut)
		}
	}
	check("live, intact", run(t, clientFor(j, pods, good), "", "seed", "-o", "json"), true)
	check("live, replaced", run(t, clientFor(j, pods, replaced), "", "seed", "-o", "json"), false)
	check("live, IDs edited", run(t, clientFor(j, pods, edited), "", "seed", "-o", "json"), false)
	if r := run(t, clientFor(j, pods, replaced), "", "seed"); !strings.Contains(folded(r.out), "it was replaced or changed") || !strings.Contains(r.errOut, "warning: ") {
		t.Errorf("text: exit %d\n%s%s", r.code, r.out, r.errOut)
	}

	// Offline: the ConfigMap saved with the Job, or given with --shards-file.
	write := func(objs ...runtime.Object) string {
		list := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
		for _, o := range objs {
			list.Items = append(list.Items, runtime.RawExtension{Object: o})
		}
		for _, p := range pods {
			list.Items = append(list.Items, runtime.RawExtension{Object: p})
		}
		b, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "all.json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	now := "--now=" + t0.Add(time.Minute).Format(time.RFC3339)
	for _, cm := range []*corev1.ConfigMap{good, replaced} {
		cm.APIVersion, cm.Kind = "v1", "ConfigMap"
	}
	check("offline, intact", run(t, nil, "", "-f", write(j, good), "-o", "json", now), true)
	check("offline, replaced", run(t, nil, "", "-f", write(j, replaced), "-o", "json", now), false)
	b, err := json.Marshal(replaced)
	if err != nil {
		t.Fatal(err)
	}
	cmFile := filepath.Join(t.TempDir(), "cm.json")
	if err := os.WriteFile(cmFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	check("--shards-file, replaced", run(t, nil, "", "-f", write(j), "--shards-file", cmFile, "-o", "json", now), false)
}
