package diff

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// --live-file takes the v1 List create --save writes (a ConfigMap and the Job): the same
// diff as the Job alone.
func TestLiveFileTakesTheSavedList(t *testing.T) {
	live := stored(manifestJob())
	alone := writeYAML(t, "live.yaml", live)
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "shards", Namespace: live.Namespace}}
	list := &corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"},
		Items: []runtime.RawExtension{{Object: cm}, {Object: live}}}
	saved := writeYAML(t, "saved.yaml", list)
	m := manifestJob()
	m.Spec.Template.Spec.Containers[0].Image = "busybox:1.37"
	desired := writeYAML(t, "job.yaml", m)
	a := run(t, nil, "", "--live-file", alone, "-f", desired)
	b := run(t, nil, "", "--live-file", saved, "-f", desired)
	if a.code != 1 || b.code != 1 || a.stdout != b.stdout {
		t.Errorf("saved List differs from the Job alone:\n%s%s\n---\n%s%s", a.stdout, a.stderr, b.stdout, b.stderr)
	}
	// Anything else in the file is an error naming its kind.
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	bad := writeYAML(t, "bad.yaml", &corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: []runtime.RawExtension{{Object: pod}, {Object: live}}})
	if r := run(t, nil, "", "--live-file", bad, "-f", desired); r.code != exitcode.Usage || !strings.Contains(r.stderr, `found kind "Pod"`) {
		t.Errorf("pod in live file: %d %s", r.code, r.stderr)
	}
}
