package status

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	clienttesting "k8s.io/client-go/testing"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
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
	if strings.Contains(folded(r.out), "b-2") {
		t.Errorf("shard IDs of the annotated (not mounted) ConfigMap shown:\n%s", r.out)
	}
	if !strings.Contains(folded(r.out), `The Job names shard ConfigMap "b-shards" (annotation indexed.kubectl.io/shards-configmap) but its pods mount ConfigMap "a-shards"`) {
		t.Errorf("no mismatch note:\n%s", r.out)
	}
	// When they agree, the IDs are shown.
	j.Annotations[shards.AnnotationShardsConfigMap] = "a-shards"
	r = run(t, clientFor(j, pods, cm("a-shards", "a-")), "", "seed", "-o", "wide")
	if r.code != 0 || !strings.Contains(folded(r.out), "a-2") || strings.Contains(folded(r.out), "but its pods mount") {
		t.Errorf("exit %d:\n%s", r.code, r.out)
	}
}

// TestFailedCreateEvents: a running Job with fewer pods than it should and FailedCreate events
// says so with the event's message (issue 16, item 4); a finished Job does not.
func TestFailedCreateEvents(t *testing.T) {
	j := job("nosa", 4)
	j.Spec.Parallelism = ptr.To[int32](2)
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "nosa.1", Namespace: "ns"},
		InvolvedObject: corev1.ObjectReference{Kind: "Job", Name: "nosa", Namespace: "ns", UID: j.UID},
		Reason:         "FailedCreate", Type: corev1.EventTypeWarning, Count: 7,
		Message:       `Error creating: pods "nosa-0-" is forbidden: error looking up service account ns/nope: serviceaccount "nope" not found`,
		LastTimestamp: metav1.Time{Time: t0.Add(30 * time.Second)},
	}
	r := run(t, clientFor(j, nil, ev), "", "nosa")
	want := `The Job has 0 active of the 2 pods it should run and the Job controller cannot create them: FailedCreate (7×, last at ` +
		t0.Add(30*time.Second).UTC().Format("2006-01-02T15:04:05Z") + `): Error creating: pods "nosa-0-" is forbidden: error looking up service account ns/nope`
	if r.code != 0 || !strings.Contains(folded(r.out), want) {
		t.Errorf("exit %d, want %q in:\n%s%s", r.code, want, r.out, r.errOut)
	}
	// Next does not promise that the controller starts them (issue 35).
	if out := folded(r.out); strings.Contains(out, "the controller starts") || !strings.Contains(out, "4 indexes are not started yet: the Job controller keeps trying to create their pods and the API server refuses them") {
		t.Errorf("Next with FailedCreate events:\n%s", r.out)
	}
	fin, pods := seed()
	ev.InvolvedObject.UID = fin.UID
	if r := run(t, clientFor(fin, pods, ev), "", "seed"); strings.Contains(folded(r.out), "FailedCreate") {
		t.Errorf("finished Job with a FailedCreate note:\n%s", r.out)
	}
}

// TestManagedByContradiction: a status written by another controller (spec.managedBy) that
// marks the Job Complete with an index missing from completedIndexes is reported as
// contradicting itself, never as "All 4 indexes succeeded" (issue 16, item 9).
func TestManagedByContradiction(t *testing.T) {
	j := job("ext", 4)
	j.Spec.ManagedBy = ptr.To("example.com/other-controller")
	j.Status.CompletedIndexes, j.Status.Succeeded = "0-2", 4
	j.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached},
	}
	r := run(t, clientFor(j, nil), "", "ext")
	for _, want := range []string{
		`The Job's status contradicts itself: the Complete condition says all 4 completions were reached (CompletionsReached), but status.completedIndexes records only 3 of them (no result for 3)`,
		`the status was written by "example.com/other-controller" (spec.managedBy)`,
		"NOT complete: the Job is marked complete but only 3 of 4 indexes succeeded",
	} {
		if !strings.Contains(folded(r.out), want) {
			t.Errorf("lacks %q:\n%s", want, r.out)
		}
	}
	if strings.Contains(folded(r.out), "All 4 indexes succeeded") {
		t.Errorf("says all succeeded:\n%s", r.out)
	}
}

// TestResumeCommandCarriesConnectionFlags: the resume command of a suspended Job is printed
// (nextEntries[].command of -o json) with the --context and --kubeconfig that were given
// (issue 16, item 3).
func TestResumeCommandCarriesConnectionFlags(t *testing.T) {
	j := job("held", 4)
	j.Spec.Suspend = ptr.To(true)
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended"}}
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	o.NewClient = clientIs(clientFor(j, nil))
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	cmd := NewCmdStatusWithOptions(f, o)
	genericclioptions.NewConfigFlags(true).AddFlags(cmd.PersistentFlags())
	cmd.SetArgs([]string{"held", "--context", "prod east", "--kubeconfig", "/k/c", "-o", "json"})
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := `"command": "kubectl --kubeconfig=/k/c '--context=prod east' patch job held -n ns --type=merge -p '{\"spec\":{\"suspend\":false}}'"`
	if !strings.Contains(out.String(), want) {
		t.Errorf("want %s in:\n%s", want, out.String())
	}
}

// TestSharedConfigMapNote: status names the other Jobs that mount the same shard ConfigMap
// (issue 16, item 6); a Job of another manifest is not named.
func TestSharedConfigMapNote(t *testing.T) {
	mk := func(name, hash, cm string) *batchv1.Job {
		j, _ := seed()
		j.Name, j.UID = name, types.UID("uid-"+name)
		j.Labels = map[string]string{shards.LabelManifestHash: hash}
		j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: cm}
		return j
	}
	j, pods := seed()
	j.Labels = map[string]string{shards.LabelManifestHash: "abc"}
	j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: "m-shards-abc"}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m-shards-abc", Namespace: "ns"},
		Data: map[string]string{shards.KeyShardIDs: `["s-a","s-b","s-c","s-d","s-e","s-f"]`}}
	r := run(t, clientFor(j, pods, cm, mk("seed-r1", "abc", "m-shards-abc"), mk("other", "def", "m-shards-def")), "", "seed")
	want := `Shard ConfigMap "m-shards-abc" is shared with 1 other Job(s) of the same manifest (seed-r1): delete it only when none of them needs it.`
	if r.code != 0 || !strings.Contains(folded(r.out), want) || strings.Contains(folded(r.out), "other,") {
		t.Errorf("exit %d, want %q in:\n%s", r.code, want, r.out)
	}
}

// TestNoPodsWithoutEvents: with no FailedCreate event to quote (events expired, or the user may
// not list them), a Job that started well over a sync ago and has no pod at all is named as
// refused, not as "the controller starts them" (issue 16, item 4); a Job that started a moment
// ago, or that has pods, gets no such note.
func TestNoPodsWithoutEvents(t *testing.T) {
	const note = "has none of the 2 pods it should run"
	j := job("stuck", 4)
	j.Spec.Parallelism = ptr.To[int32](2)
	j.Status.Active = 0
	// run's clock is t0 + 1 minute: a Job that started at t0 has had no pods for a minute.
	j.Status.StartTime = &metav1.Time{Time: t0}
	r := run(t, clientFor(j, nil), "", "stuck")
	if r.code != 0 || !strings.Contains(folded(r.out), "The Job started 1m0s ago and "+note) || !strings.Contains(folded(r.out), "no FailedCreate event explains it") ||
		!strings.Contains(folded(r.out), "kubectl get events -n ns --field-selector involvedObject.name=stuck") {
		t.Errorf("exit %d:\n%s%s", r.code, r.out, r.errOut)
	}

	denied := clientFor(j, nil)
	denied.PrependReactor("list", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", errors.New("RBAC"))
	})
	if r := run(t, denied, "", "stuck"); !strings.Contains(folded(r.out), note) || !strings.Contains(folded(r.out), `ask for "list" on "events"`) {
		t.Errorf("events not readable:\n%s", r.out)
	}

	recent := j.DeepCopy()
	recent.Status.StartTime = &metav1.Time{Time: t0.Add(50 * time.Second)}
	if r := run(t, clientFor(recent, nil), "", "stuck"); strings.Contains(folded(r.out), note) {
		t.Errorf("a Job started 10s ago is not stuck:\n%s", r.out)
	}
	withPods, pods := running()
	withPods.Status.StartTime = &metav1.Time{Time: t0}
	if r := run(t, clientFor(withPods, pods), "", withPods.Name); strings.Contains(folded(r.out), "has none of the") {
		t.Errorf("a Job with pods:\n%s", r.out)
	}
}

// TestLineageNoteCarriesConnectionFlags: the status of a retry names the command for the whole
// run with the namespace and the connection flags given, so that it runs against the same
// cluster (issue 16, item 3).
func TestLineageNoteCarriesConnectionFlags(t *testing.T) {
	root, r1, pods := seedLineage()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	o.NewClient = clientIs(clientFor(r1, pods, root))
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	cmd := NewCmdStatusWithOptions(f, o)
	genericclioptions.NewConfigFlags(true).AddFlags(cmd.PersistentFlags())
	cmd.SetArgs([]string{"seed-r1", "--context", "prod east", "--kubeconfig", "/k/c"})
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := `The whole run: kubectl indexed status seed-r1 --lineage -n ns --kubeconfig=/k/c '--context=prod east'`
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), want) {
		t.Errorf("want %q in:\n%s", want, out.String())
	}
}

// folded is the text report with its 80-column wrapping undone (every run of white space one
// space), for checks of whole sentences.
func folded(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestNextPluginCommandsCarryConnectionFlags: the plugin commands status names for a finished
// Job's failed indexes (logs --failed, retry) carry the connection flags given, after the
// plugin's name where kubectl finds plugins (issue 16, item 3).
func TestNextPluginCommandsCarryConnectionFlags(t *testing.T) {
	j, pods := seed()
	j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: "m-shards"}
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	o.NewClient = clientIs(clientFor(j, pods))
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	cmd := NewCmdStatusWithOptions(f, o)
	genericclioptions.NewConfigFlags(true).AddFlags(cmd.PersistentFlags())
	cmd.SetArgs([]string{"seed", "--context", "prod east", "--kubeconfig", "/k/c", "-o", "json"})
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := `"command": "kubectl indexed logs seed -n ns --failed --kubeconfig=/k/c '--context=prod east'"`
	if !strings.Contains(out.String(), want) {
		t.Errorf("want %s in:\n%s", want, out.String())
	}
}

// TestLineageOfflineShardConfigMapDecidedAsLive: offline --lineage decides which shard
// ConfigMap to trust as live status does (scaffold.TrustedShards): a ConfigMap the pods do not
// mount gives no shard IDs and a note, and an unreadable one a note instead of silently no IDs
// (issue 24, item 4). Before, both showed nothing: the annotated ConfigMap's IDs were used, and
// unreadable IDs were dropped without a word.
func TestLineageOfflineShardConfigMapDecidedAsLive(t *testing.T) {
	j, pods := seed()
	j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: "b-shards"}
	j.Spec.Template.Spec.Volumes = append(j.Spec.Template.Spec.Volumes, scaffold.ShardVolume([]string{"a-shards"}))
	cm := func(name, ids string) *corev1.ConfigMap {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Data: map[string]string{shards.KeyShardIDs: ids}}
	}
	write := func(objs ...runtime.Object) string {
		list := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
		for _, o := range objs {
			list.Items = append(list.Items, runtime.RawExtension{Object: o})
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
	objs := []runtime.Object{j, cm("b-shards", `["b-0","b-1","b-2","b-3","b-4","b-5"]`)}
	for _, p := range pods {
		objs = append(objs, p)
	}
	r := run(t, nil, "", "--lineage", "-f", write(objs...), "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if strings.Contains(r.out, `"b-2"`) {
		t.Errorf("shard IDs of the annotated (not mounted) ConfigMap shown:\n%s", r.out)
	}
	if !strings.Contains(folded(r.out), `but its pods mount ConfigMap \"a-shards\"`) {
		t.Errorf("no mismatch note:\n%s", r.out)
	}
	// Mounted and annotated agree, but the IDs cannot be read: a note.
	j.Annotations[shards.AnnotationShardsConfigMap] = "a-shards"
	objs[1] = cm("a-shards", `not json`)
	r = run(t, nil, "", "--lineage", "-f", write(objs...), "-o", "json")
	if r.code != 0 || !strings.Contains(r.out, "Shard IDs are not shown") {
		t.Errorf("unreadable shard IDs without a note: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
}

// TestNextTextMatchesJSON: the text view's Next prints every command that -o json's
// nextEntries[].command holds, the same words, on a line of its own (issue 26 item 1: the text
// printed `kubectl indexed retry base -n NS` without the connection flags, wrapped mid-command,
// since the flags were added to the command but not to the sentence quoting it). Fails before
// carryConnection rewrote the sentence.
func TestNextTextMatchesJSON(t *testing.T) {
	run := func(format string) string {
		j, pods := seed()
		j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: "m-shards"}
		streams, _, out, errOut := genericiooptions.NewTestIOStreams()
		o := NewOptions(streams)
		o.NewClient = clientIs(clientFor(j, pods))
		o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
		f := cmdtesting.NewTestFactory().WithNamespace("ns")
		defer f.Cleanup()
		cmd := NewCmdStatusWithOptions(f, o)
		genericclioptions.NewConfigFlags(true).AddFlags(cmd.PersistentFlags())
		args := []string{"seed", "--context", "prod east", "--kubeconfig", "/k/c", "--as", "jane"}
		if format != "" {
			args = append(args, "-o", format)
		}
		cmd.SetArgs(args)
		cmd.SetOut(out)
		cmd.SetErr(errOut)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		_ = cmd.ExecuteContext(context.Background())
		return out.String()
	}
	var rep struct {
		NextEntries []struct {
			Command string `json:"command"`
		} `json:"nextEntries"`
	}
	if err := json.Unmarshal([]byte(run("json")), &rep); err != nil {
		t.Fatal(err)
	}
	text := run("")
	n := 0
	for _, e := range rep.NextEntries {
		if e.Command == "" {
			continue
		}
		n++
		if !strings.Contains(e.Command, "--as=jane") {
			t.Errorf("no --as in %s", e.Command)
		}
		// A command too long for 80 columns continues on the next lines after a backslash
		// (between shell words, never inside quotes): join them as the shell does.
		for _, line := range strings.Split(text, "\n") {
			if strings.HasSuffix(line, " \\") && strings.Count(line, "'")%2 == 1 {
				t.Errorf("a line break inside quotes (the shell keeps it literally): %q", line)
			}
		}
		joined := regexp.MustCompile(` \\\n\s*`).ReplaceAllString(text, " ")
		joined = regexp.MustCompile(` \|\n\s*`).ReplaceAllString(joined, " | ")
		found := false
		for _, line := range strings.Split(joined, "\n") {
			if strings.TrimSpace(line) == e.Command {
				found = true
			}
		}
		if !found {
			t.Errorf("the text view does not print %q on a line of its own:\n%s", e.Command, text)
		}
	}
	if n == 0 {
		t.Fatalf("no command in Next:\n%s", text)
	}
}

// TestBadNamespaceIsUsage: `status j1 -n ..` is a usage error (exit 2) and sends nothing; it
// used to reach the server as a request for another path and exit 4 (issue 26 item 15). The
// same check (clientutil.CheckNamespace) runs in every verb that resolves a namespace.
func TestBadNamespaceIsUsage(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	kc := filepath.Join(t.TempDir(), "kc")
	if err := os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "+srv.URL+"}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\nusers:\n- name: u\n  user: {}\ncurrent-context: c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"..", "a/b", "UPPER", "-x"} {
		cf := genericclioptions.NewConfigFlags(true)
		streams, _, _, errOut := genericiooptions.NewTestIOStreams()
		cmd := NewCmdStatus(cmdutil.NewFactory(cf), streams)
		cf.AddFlags(cmd.PersistentFlags())
		cmd.SetArgs([]string{"j1", "--kubeconfig", kc, "-n", ns})
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.ExecuteContext(context.Background())
		if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), "not a valid namespace name") {
			t.Errorf("-n %s: exit %d %v %s", ns, exitcode.Code(err), err, errOut)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
