package status

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// TestShardsConfigMapMountMismatch: when the shards-configmap annotation names a ConfigMap other
// than the one the pod template mounts (the annotation was patched after create), status shows no
// shard IDs from the annotated ConfigMap and says which ConfigMap the pods read (issue 16, item 1).
func TestShardsConfigMapMountMismatch(t *testing.T) {
	j, pods := seed()
	j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: "b-shards"}
	j.Spec.Template.Spec.Volumes = append(j.Spec.Template.Spec.Volumes, scaffold.ShardVolume([]string{"a-shards"}))
	cm := func(name, prefix string) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
			Data:       map[string]string{shards.KeyShardIDs: `["` + prefix + `0","` + prefix + `1","` + prefix + `2","` + prefix + `3","` + prefix + `4","` + prefix + `5"]`},
		}
	}
	r := run(t, clientFor(j, pods, cm("a-shards", "a-"), cm("b-shards", "b-")), "", "seed", "-o", "wide")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if strings.Contains(r.out, "b-2") {
		t.Errorf("shard IDs of the annotated (not mounted) ConfigMap shown:\n%s", r.out)
	}
	if !strings.Contains(r.out, `The Job names shard ConfigMap "b-shards" (annotation indexed.kubectl.io/shards-configmap) but its pods mount ConfigMap "a-shards"`) {
		t.Errorf("no mismatch note:\n%s", r.out)
	}
	// When they agree, the IDs are shown.
	j.Annotations[shards.AnnotationShardsConfigMap] = "a-shards"
	r = run(t, clientFor(j, pods, cm("a-shards", "a-")), "", "seed", "-o", "wide")
	if r.code != 0 || !strings.Contains(r.out, "a-2") || strings.Contains(r.out, "but its pods mount") {
		t.Errorf("exit %d:\n%s", r.code, r.out)
	}
}
