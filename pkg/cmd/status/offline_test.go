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
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// An offline report is made at the newest time in the objects, not at the wall clock's: the
// run helper's clock is t0+1m, the running fixture's newest time is its pods' finish at t0+5s.
func TestOfflineReportIsMadeAtCaptureTime(t *testing.T) {
	j, pods := running()
	jobFile, podsFile := writeObjects(t, j, pods)
	r := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "-o", "json")
	var rep indexstatus.IndexedJobStatus
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || r.code != 0 {
		t.Fatalf("%v\n%s%s", err, r.out, r.errOut)
	}
	if want := t0.Add(5 * time.Second); !rep.ObservedAt.Equal(want) {
		t.Errorf("observedAt = %s, want the capture time %s", rep.ObservedAt, want)
	}
	// --now sets it.
	r = run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "-o", "json", "--now", "2026-03-01T13:00:00Z")
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || !rep.ObservedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("--now: observedAt %s, %v", rep.ObservedAt, err)
	}
	if r := run(t, nil, "", "-f", jobFile, "--now", "yesterday"); r.code != exitcode.Usage || !strings.Contains(r.errOut, "not an RFC 3339 time") {
		t.Errorf("--now yesterday: %+v", r)
	}
	if r := run(t, nil, "", "run", "--now", "2026-03-01T13:00:00Z"); r.code != exitcode.Usage {
		t.Errorf("--now live: %+v", r)
	}
}

// Without pods the report says they were not given, not that they are gone.
func TestOfflineWithoutPodsSaysNotGiven(t *testing.T) {
	j, _ := seed()
	jobFile, _ := writeObjects(t, j, nil)
	r := run(t, nil, "", "-f", jobFile)
	r.out = strings.Join(strings.Fields(r.out), " ") // the text view wraps at 80 columns
	if r.code != 0 || !strings.Contains(r.out, "Why indexes 2,4 failed (exit code, attempts): the pods were not given (--pods-file).") ||
		strings.Contains(r.out, "garbage collection") || strings.Contains(r.out, "pods are gone") {
		t.Errorf("exit %d:\n%s", r.code, r.out)
	}
}

// Pods of another Job are an error naming them, not a footnote.
func TestOfflineForeignPodsAreAnError(t *testing.T) {
	j, pods := seed()
	other, otherPods := running()
	jobFile, podsFile := writeObjects(t, j, append(pods, otherPods[0]))
	r := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile)
	want := `1 of the pods given belong to another Job, not to Job "seed" (uid uid-seed): ` + otherPods[0].Name + ` (the first belongs to Job "` + other.Name + `")`
	if r.code != exitcode.Usage || !strings.Contains(r.errOut, want) || !strings.Contains(r.errOut, "kubectl get pods -n ns -l batch.kubernetes.io/controller-uid=uid-seed -o json") {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", r.code, r.errOut, want)
	}
}

// -f takes the List `kubectl get job,pods -o json` writes: the same report as two files.
func TestOfflineListOfJobAndPods(t *testing.T) {
	j, pods := seed()
	jobFile, podsFile := writeObjects(t, j, pods)
	list := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	list.Items = append(list.Items, runtime.RawExtension{Object: j})
	for _, p := range pods {
		list.Items = append(list.Items, runtime.RawExtension{Object: p})
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	listFile := filepath.Join(t.TempDir(), "list.json")
	if err := os.WriteFile(listFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	two := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "-o", "wide")
	one := run(t, nil, "", "-f", listFile, "-o", "wide")
	if one.code != 0 || one.out != two.out {
		t.Errorf("List input differs:\n%s%s\n---\n%s", one.out, one.errOut, two.out)
	}
	if r := run(t, nil, "", "-f", listFile, "--pods-file", podsFile); r.code != exitcode.Usage || !strings.Contains(r.errOut, "already holds pods") {
		t.Errorf("pods twice: %+v", r)
	}
	// Two Jobs in one file: which one is meant is not guessed.
	j2, _ := running()
	list.Items = append(list.Items, runtime.RawExtension{Object: j2})
	b, _ = json.Marshal(list)
	_ = os.WriteFile(listFile, b, 0o600)
	if r := run(t, nil, "", "-f", listFile); r.code != exitcode.Usage || !strings.Contains(r.errOut, `holds more than one Job ("seed" and "run")`) {
		t.Errorf("two Jobs: %+v", r)
	}
}

// -n with -f is an error: the saved Job names its own namespace.
func TestOfflineNamespaceFlagIsAnError(t *testing.T) {
	j, _ := seed()
	jobFile, _ := writeObjects(t, j, nil)
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	o.Clock = testingclock.NewFakeClock(t0)
	f := cmdtesting.NewTestFactory()
	defer f.Cleanup()
	cmd := NewCmdStatusWithOptions(f, o)
	cmd.PersistentFlags().StringP("namespace", "n", "", "as the root command has it")
	cmd.SetArgs([]string{"-f", jobFile, "-n", "other"})
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if exitcode.Code(err) != exitcode.Usage || !strings.Contains(exitcode.Message(err), "-n/--namespace cannot be used with -f") {
		t.Errorf("err = %v", err)
	}
}

// status takes the Job as kubectl users write it: job/NAME, jobs.batch/NAME (what
// `kubectl get -o name` prints) give the same report as NAME; another type is a usage error.
func TestJobArgumentForms(t *testing.T) {
	j, pods := seed()
	plain := run(t, clientFor(j, pods), "", "seed")
	for _, arg := range []string{"job/seed", "job.batch/seed", "jobs.batch/seed"} {
		if r := run(t, clientFor(j, pods), "", arg); r.code != 0 || r.out != plain.out {
			t.Errorf("%s: exit %d\n%s%s", arg, r.code, r.out, r.errOut)
		}
	}
	if r := run(t, clientFor(j, pods), "", "pod/seed"); r.code != exitcode.Usage || !strings.Contains(r.errOut, `"pod/seed" is not a Job`) {
		t.Errorf("pod/seed: %+v", r)
	}
}

// kubectl's template formats, through cli-runtime's printers, on the documented JSON fields.
func TestTemplateOutputs(t *testing.T) {
	j, pods := seed()
	jobFile, podsFile := writeObjects(t, j, pods)
	for format, want := range map[string]string{
		"jsonpath={.completeness.missing}":                              "2,4",
		`jsonpath={range .indexes[?(@.state=="Failed")]}{.index} {end}`: "2 4 ",
		"go-template={{.phase}}":                                        "Failed",
		// custom-columns: a row per index, as docs/kubectl-habits.md says.
		"custom-columns=INDEX:.index,STATE:.state": "INDEX   STATE\n0       Succeeded\n1       Succeeded\n2       Failed\n3       Succeeded\n4       Failed\n5       Succeeded\n",
		"name": "job.batch/" + j.Name + "\n",
	} {
		r := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "-o", format)
		if r.code != 0 || r.out != want {
			t.Errorf("-o %s: exit %d, got %q want %q (%s)", format, r.code, r.out, want, r.errOut)
		}
	}
	if r := run(t, nil, "", "-f", jobFile, "-o", "jsonpath={.nope"); r.code != exitcode.Usage || !strings.Contains(r.errOut, "unclosed action") {
		t.Errorf("bad jsonpath: %+v", r)
	}
	if r := run(t, nil, "", "-f", jobFile, "-o", "xml"); r.code != exitcode.Usage || !strings.Contains(r.errOut, "jsonpath=...") {
		t.Errorf("-o xml: %+v", r)
	}
}

// A --pods-file that holds no object at all (empty, as a failed kubectl get pods > pods.json
// leaves it, only null, an empty directory, empty stdin) is not "no pods": the report would
// say the pods are gone. It is an error naming the input and the command that saves the pods;
// a List with no items is an answer (no pod exists) and still makes a report.
func TestPodsFileWithoutObjectIsAnError(t *testing.T) {
	j, pods := seed()
	jobFile, _ := writeObjects(t, j, pods)
	write := func(name, text string) string { return testutil.WriteFile(t, name, text) }
	emptyDir := filepath.Join(t.TempDir(), "emptydir")
	if err := os.Mkdir(emptyDir, 0o700); err != nil {
		t.Fatal(err)
	}
	want := "holds no object (it is empty, or holds only null): expected the pods as kubectl get pods -n ns -l batch.kubernetes.io/job-name=seed -o json writes them"
	for name, tc := range map[string]struct{ path, stdin string }{
		"empty file":  {path: write("empty.json", "")},
		"null":        {path: write("null.json", "null\n")},
		"spaces":      {path: write("spaces.yaml", "  \n\n")},
		"yaml null":   {path: write("null.yaml", "---\n~\n")},
		"empty dir":   {path: emptyDir},
		"empty stdin": {path: "-"},
	} {
		r := run(t, nil, tc.stdin, "-f", jobFile, "--pods-file", tc.path)
		if r.code != exitcode.Usage || !strings.Contains(r.errOut, tc.path+": "+want) || r.out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want exit 2 and %q", name, r.code, r.out, r.errOut, want)
		}
	}
	for name, text := range map[string]string{
		"json":      `{"apiVersion":"v1","kind":"List","items":[]}`,
		"yaml":      "apiVersion: v1\nkind: List\nitems: []\n",
		"json null": `{"apiVersion":"v1","kind":"PodList","items":null}`,
	} {
		r := run(t, nil, "", "-f", jobFile, "--pods-file", write("list-"+strings.ReplaceAll(name, " ", "-")+".txt", text))
		if r.code != 0 || strings.Contains(r.out, "No pods given") || !strings.Contains(folded(r.out), "their pods are gone") {
			t.Errorf("%s: an empty List is no pods, not no answer: exit %d\n%s%s", name, r.code, r.out, r.errOut)
		}
	}
}

// A Job with more completions than a report is made for (indexstatus.MaxCompletions; the API
// server accepts up to 2^31-1) is a usage error naming the bound, offline and live, not a
// report that runs out of memory (before: a Go runtime fatal error at 10,000,000).
func TestTooManyCompletionsIsAnError(t *testing.T) {
	j, pods := seed()
	j.Spec.Completions = ptr.To[int32](indexstatus.MaxCompletions + 1)
	jobFile, podsFile := writeObjects(t, j, pods)
	want := `job "seed" in namespace "ns" has spec.completions 1000001: more indexes than a report is made for (at most 1000000`
	for name, r := range map[string]result{
		"offline": run(t, nil, "", "-f", jobFile, "--pods-file", podsFile),
		"live":    run(t, clientFor(j, pods), "", "seed"),
	} {
		if r.code != exitcode.Usage || !strings.Contains(r.errOut, want) || r.out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %d bytes; want exit 2 and %q", name, r.code, r.errOut, len(r.out), want)
		}
	}
}

// --now earlier than the newest time written in the objects is a usage error naming that time:
// the objects were saved after it, and a report then counted ages and backoffs from the future
// ("retried after 60611h45m33s"). --now at that very time is accepted.
func TestNowBeforeTheObjectsIsAnError(t *testing.T) {
	j, pods := running()
	jobFile, podsFile := writeObjects(t, j, pods)
	newest := t0.Add(5 * time.Second).UTC().Format(time.RFC3339) // the running fixture's pods' finish
	for name, args := range map[string][]string{
		"streamed pods": {"-f", jobFile, "--pods-file", podsFile},
		"job alone":     {"-f", jobFile},
	} {
		r := run(t, nil, "", append(args, "--now", "2020-01-01T00:00:00Z")...)
		if r.code != exitcode.Usage || r.out != "" || !strings.Contains(r.errOut, "--now 2020-01-01T00:00:00Z is before ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2", name, r.code, r.out, r.errOut)
		}
	}
	r := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "--now", "2026-03-01T12:00:04Z")
	if want := "--now 2026-03-01T12:00:04Z is before " + newest + ", the newest time written in the objects"; r.code != exitcode.Usage || !strings.Contains(r.errOut, want) {
		t.Errorf("a second early: exit %d, stderr %q, want %q", r.code, r.errOut, want)
	}
	if r := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "--now", newest); r.code != 0 {
		t.Errorf("--now at the newest time: exit %d, %s", r.code, r.errOut)
	}
}

// -f holding the Job's shard ConfigMap next to it (the List create --save and create
// --dry-run=client -o yaml write) gives the shard IDs, as --shards-file with that ConfigMap
// does; before, the report ignored it and said to give it with --shards-file. A ConfigMap of
// the same name in another namespace is not the Job's.
func TestShardConfigMapInFile(t *testing.T) {
	j, pods, cm := seedWithShards()
	jobFile, podsFile := writeObjects(t, j, pods)
	cmFile := writeList(t, cm)
	now := []string{"-o", "wide", "--now", t0.Add(time.Minute).Format(time.RFC3339)}
	want := run(t, nil, "", append([]string{"-f", jobFile, "--pods-file", podsFile, "--shards-file", cmFile}, now...)...)
	if !strings.Contains(want.out, "2      s-c    Failed") {
		t.Fatalf("--shards-file: no shard IDs:\n%s%s", want.out, want.errOut)
	}
	got := run(t, nil, "", append([]string{"-f", writeList(t, cm, j), "--pods-file", podsFile}, now...)...)
	if got.code != 0 || got.out != want.out {
		t.Errorf("the ConfigMap in -f: exit %d %s\n%s\n--- want (--shards-file)\n%s", got.code, got.errOut, got.out, want.out)
	}
	other := cm.DeepCopy()
	other.Namespace = "elsewhere"
	r := run(t, nil, "", append([]string{"-f", writeList(t, other, j), "--pods-file", podsFile}, now...)...)
	if r.code != 0 || strings.Contains(r.out, "s-c") || !strings.Contains(r.out, `give it with --shards-file`) {
		t.Errorf("another namespace's ConfigMap: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	bad := cm.DeepCopy()
	bad.Data = map[string]string{shards.KeyShardIDs: `not json`}
	r = run(t, nil, "", append([]string{"-f", writeList(t, bad, j), "--pods-file", podsFile}, now...)...)
	if r.code != 0 || !strings.Contains(folded(r.out), `Shard IDs are not shown: configmap "seed-shards" key`) {
		t.Errorf("unreadable IDs: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
}
