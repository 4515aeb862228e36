package create

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// runRoot is run with the root command's kubeconfig flags, as the plugin binds them.
func runRoot(t *testing.T, client *fake.Clientset, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Namespace = "ml"
	if client != nil {
		o.Client = client
	}
	cmd := newCmd(nil, o)
	genericclioptions.NewConfigFlags(true).AddFlags(cmd.PersistentFlags())
	return io.Run(cmd, args...)
}

// TestSaveOnlyWhenCreated: --save writes nothing when create fails, whatever fails (issue 16,
// item 2), and its hint is kubectl create -f (which refuses an existing Job), never apply.
func TestSaveOnlyWhenCreated(t *testing.T) {
	m, _ := manifestFile(t)
	existing := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "ml"}}
	jobForbidden := fake.NewClientset()
	jobForbidden.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "eval", nil)
	})
	for name, c := range map[string]*fake.Clientset{
		"job exists":           fake.NewClientset(existing),
		"job create forbidden": jobForbidden,
	} {
		save := filepath.Join(t.TempDir(), "eval.yaml")
		r := run(t, c, "eval", "--manifest", m, "--image", "img", "--save", save)
		if r.Code != exitcode.Cluster {
			t.Errorf("%s: exit %d: %v", name, r.Code, r.Err)
		}
		if _, err := os.Stat(save); !os.IsNotExist(err) {
			t.Errorf("%s: --save file written although create failed (%v)", name, err)
		}
		if strings.Contains(r.Stderr, "saved") {
			t.Errorf("%s: says saved: %s", name, r.Stderr)
		}
	}
	save := filepath.Join(t.TempDir(), "eval.yaml")
	r := run(t, fake.NewClientset(), "eval", "--manifest", m, "--image", "img", "--save", save)
	if r.Code != 0 {
		t.Fatalf("exit %d: %v", r.Code, r.Err)
	}
	if _, err := os.Stat(save); err != nil {
		t.Errorf("not saved after a create: %v", err)
	}
	if !strings.Contains(r.Stderr, "(kubectl create -f "+save+" creates them; it refuses") || strings.Contains(r.Stderr, "apply") {
		t.Errorf("hint: %s", r.Stderr)
	}
}

// TestFlagsRefusedBeforeSending: --save -, --save to an existing file, a field manager the API
// server rejects, and --save-config over the annotation limit are usage errors (exit 2) with
// nothing sent (issue 16, item 7).
func TestFlagsRefusedBeforeSending(t *testing.T) {
	m, _ := manifestFile(t)
	exists := filepath.Join(t.TempDir(), "exists.yaml")
	if err := os.WriteFile(exists, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := bigManifest(t, 300<<10)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--save", "-"}, "--save -: standard output is where the created objects are printed"},
		{[]string{"--save", exists}, "the file exists; it is never overwritten"},
		{[]string{"--field-manager", strings.Repeat("m", 129)}, "--field-manager"},
		{[]string{"--field-manager", "a\nb"}, `invalid character U+000A`},
		{[]string{"--field-manager", "a\u202eb"}, `invalid character U+202E`},
		{[]string{"--image", "busybox:1.36 "}, `container "worker": image "busybox:1.36 " cannot be pulled: it has leading or trailing whitespace`},
		{[]string{"--image", "Busybox"}, `the repository name must be lowercase`},
		{[]string{"--manifest", big, "--save-config"}, "--save-config: the last-applied-configuration annotation makes the annotations of configmap"},
	} {
		c := fake.NewClientset()
		args := append([]string{"eval", "--manifest", m, "--image", "img"}, tc.args...)
		r := run(t, c, args...)
		if r.Code != exitcode.Usage || r.Err == nil || !strings.Contains(r.Err.Error(), tc.want) {
			t.Errorf("%q: exit %d, want 2 and %q: %v", tc.args, r.Code, tc.want, r.Err)
		}
		if n := len(c.Actions()); n != 0 {
			t.Errorf("%q: %d requests sent: %v", tc.args, n, verbs(c))
		}
	}
	if b, _ := os.ReadFile(exists); string(b) != "keep\n" {
		t.Errorf("existing --save file changed: %q", b)
	}
	// The same big manifest without --save-config is fine (the store splits it if needed).
	if r := run(t, nil, "eval", "--manifest", big, "--image", "img", "--dry-run=client"); r.Code != 0 {
		t.Errorf("without --save-config: exit %d: %v", r.Code, r.Err)
	}
}

// bigManifest writes a manifest of about size bytes of case IDs.
func bigManifest(t *testing.T, size int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: big}\nrevision: \"1\"\nshards:\n")
	for s := 0; b.Len() < size; s++ {
		fmt.Fprintf(&b, "- id: s%d\n  cases:\n", s)
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, "  - case-%d-%03d-padding-padding-padding\n", s, i)
		}
	}
	return testutil.WriteFile(t, "big.yaml", b.String())
}

// TestRaceLoserAndDeletingConfigMap: the loser of a race for the Job name (with another
// manifest) is told that the Job exists and that its own ConfigMap is left behind, without
// "nothing was created"; a ConfigMap being deleted is not reused (issue 16, items 6 and 7).
func TestRaceLoserAndDeletingConfigMap(t *testing.T) {
	m, man := manifestFile(t)
	c := fake.NewClientset()
	c.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewAlreadyExists(schema.GroupResource{Group: "batch", Resource: "jobs"}, "eval")
	})
	r := runRoot(t, c, "eval", "--manifest", m, "--image", "img", "--context", "prod east", "--kubeconfig", "/tmp/k c")
	msg := r.Err.Error()
	cm := scaffold.ConfigMapName(man)
	for _, want := range []string{
		`job "eval" already exists in namespace "ml"`,
		"it was created by someone else while this create ran, so this Job was not created",
		`configmap "` + cm + `" was created in namespace "ml" but job "eval" was not`,
		// Only Jobs create made (no root-job label) mount a create's ConfigMap: issue 26,
		// item 11.
		"kubectl get jobs -n ml -l 'indexed.kubectl.io/manifest-hash=" + man.ShortHash(scaffold.HashLength) + ",!indexed.kubectl.io/root-job'",
		"kubectl delete configmap " + cm + " -n ml '--kubeconfig=/tmp/k c' '--context=prod east'",
		"kubectl indexed status eval -n ml '--kubeconfig=/tmp/k c' '--context=prod east'",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "nothing was created") {
		t.Errorf("says nothing was created although the ConfigMap was:\n%s", msg)
	}

	want := configMapOf(t, man)
	now := metav1.Now()
	want.DeletionTimestamp = &now
	want.Finalizers = []string{"example.com/hold"}
	c = fake.NewClientset(want)
	r = run(t, c, "eval", "--manifest", m, "--image", "img")
	if r.Code != exitcode.Cluster || !strings.Contains(r.Err.Error(), "is being deleted") || !strings.Contains(r.Err.Error(), "kubectl wait --for=delete configmap/"+cm+" -n ml") {
		t.Errorf("exit %d: %v", r.Code, r.Err)
	}
	for _, v := range verbs(c) {
		if strings.HasPrefix(v, "create") {
			t.Errorf("sent %s for a ConfigMap being deleted", v)
		}
	}
}
