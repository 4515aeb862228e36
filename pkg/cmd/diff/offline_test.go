package diff

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes/fake"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobdiff"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// runWithConfigFlags runs diff with the plugin's real kubeconfig flags (as the root command
// adds them) and a factory made from them, with no client.
func runWithConfigFlags(t *testing.T, args ...string) result {
	t.Helper()
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	cf := genericclioptions.NewConfigFlags(true)
	f := cmdutil.NewFactory(cf)
	io := cmdtest.NewIO("")
	o := testOptions(io, nil)
	cmd := NewCmdDiffWithOptions(f, o)
	cf.AddFlags(cmd.PersistentFlags())
	r := io.Run(cmd, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// TestOfflineReadsNoKubeconfig: with --live-file, diff needs no kubeconfig, as status -f,
// reconcile --manifest, simulate and lint do; it used to fail with "cannot read the kubeconfig"
// (exit 2) for a missing --kubeconfig file or an unknown --context.
func TestOfflineReadsNoKubeconfig(t *testing.T) {
	liveFile := writeYAML(t, "live.yaml", stored(manifestJob()))
	desired := writeYAML(t, "job.yaml", manifestJob())
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, extra := range [][]string{nil, {"--kubeconfig", missing}, {"--context", "nope"}, {"--cluster", "nope", "--user", "nope"}} {
		args := append([]string{"--live-file", liveFile, "-f", desired}, extra...)
		r := runWithConfigFlags(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "No differences") {
			t.Errorf("%v: code %d\n%s%s", extra, r.code, r.stdout, r.stderr)
		}
	}
	// -n still says which namespace the desired Job must be in.
	if r := runWithConfigFlags(t, "--live-file", liveFile, "-f", desired, "-n", "other", "--kubeconfig", missing); r.code != exitcode.Usage ||
		!strings.Contains(r.stderr, `the desired Job "eval" is in namespace "ns", but the namespace given is "other"`) {
		t.Errorf("-n other: code %d\n%s", r.code, r.stderr)
	}
	// Live, the kubeconfig is still needed, and its problem named.
	if r := runWithConfigFlags(t, "eval", "-f", desired, "--kubeconfig", missing); r.code != exitcode.Usage || !strings.Contains(r.stderr, "cannot read the kubeconfig") {
		t.Errorf("live: code %d\n%s", r.code, r.stderr)
	}
}

// TestOfflineNamespaceWithoutOne: offline, files that name no namespace are compared in
// "default" (the kubeconfig is not read for one), and the plan's commands say so.
func TestOfflineNamespaceWithoutOne(t *testing.T) {
	live := stored(manifestJob())
	live.Namespace = ""
	m := manifestJob()
	m.Namespace = ""
	m.Spec.Parallelism = ptr.To[int32](3)
	r := runWithConfigFlags(t, "--live-file", writeYAML(t, "live.yaml", live), "-f", writeYAML(t, "job.yaml", m), "--context", "nope")
	if r.code != 1 || !strings.Contains(r.stdout, "patch job eval -n default --type=merge") {
		t.Errorf("code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestLiveFileJudgedWhenSaved: a --live-file Job is judged at the time it was saved (the
// newest time written in it, as status -f infers it, or --now), not at the wall clock's. An
// older file used to get a false DeadlineExceededNow for a deadline the Job had not reached
// when saved, and the change was left out of the plan's patch.
func TestLiveFileJudgedWhenSaved(t *testing.T) {
	saved := t0.Add(-33 * time.Hour) // the test clock is at t0
	live := stored(manifestJob())
	live.CreationTimestamp = metav1.NewTime(saved.Add(-12 * time.Second))
	live.Status.StartTime = &metav1.Time{Time: saved.Add(-10 * time.Second)}
	liveFile := writeYAML(t, "live.yaml", live)
	m := manifestJob()
	m.Spec.ActiveDeadlineSeconds = ptr.To[int64](7200)
	desired := writeYAML(t, "job.yaml", m)

	warned := func(t *testing.T, r result) bool {
		t.Helper()
		var rep jobdiff.Report
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("code %d: %v\n%s", r.code, err, r.stderr)
		}
		for _, w := range rep.Warnings {
			if w.Code == jobdiff.WarnDeadlineExceededNow {
				return true
			}
		}
		return false
	}
	// The newest time written in the file is the start: the deadline of 2 h is far.
	r := run(t, nil, "", "--live-file", liveFile, "-f", desired, "-o", "json")
	if r.code != 1 || warned(t, r) {
		t.Errorf("at the capture time: code %d, DeadlineExceededNow %v\n%s", r.code, warned(t, r), r.stdout)
	}
	if r := run(t, nil, "", "--live-file", liveFile, "-f", desired); !strings.Contains(r.stdout, "started 0s ago") || strings.Contains(r.stdout, "DeadlineExceededNow") {
		t.Errorf("text:\n%s", r.stdout)
	}
	// --now 3 h after the start: the deadline is past.
	r = run(t, nil, "", "--live-file", liveFile, "-f", desired, "-o", "json", "--now", saved.Add(3*time.Hour).Format(time.RFC3339))
	if r.code != 1 || !warned(t, r) {
		t.Errorf("--now: code %d, DeadlineExceededNow %v\n%s", r.code, warned(t, r), r.stdout)
	}
	// --now before the newest time in the file is a usage error, as for status -f.
	if r := run(t, nil, "", "--live-file", liveFile, "-f", desired, "--now", saved.Add(-time.Hour).Format(time.RFC3339)); r.code != 2 || !strings.Contains(r.stderr, "the newest time written in the objects") {
		t.Errorf("--now before the file: code %d\n%s", r.code, r.stderr)
	}
	// Live, the wall clock (the test clock) is the time.
	r = run(t, fake.NewClientset(live.DeepCopy()), "", "eval", "-f", desired, "-o", "json")
	if r.code != 1 || !warned(t, r) {
		t.Errorf("live: code %d, DeadlineExceededNow %v", r.code, warned(t, r))
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--live-file", liveFile, "-f", desired, "--now", "yesterday"}, `--now "yesterday" is not an RFC 3339 time`},
		{[]string{"eval", "-f", desired, "--now", saved.Format(time.RFC3339)}, "--now needs --live-file"},
	} {
		if r := run(t, fake.NewClientset(live.DeepCopy()), "", tc.args...); r.code != exitcode.Usage || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: code %d, stderr %q", tc.args, r.code, r.stderr)
		}
	}
}

// TestNewJobPipelineActsAsTheUserAndTakesAnExportedJob: the plan's `kubectl patch --local |
// kubectl create -f -` carries the connection flags on both steps, once (issue 26 item 1: the
// create ran as the default user), and works on a desired Job exported with kubectl get -o
// yaml (item 12: its resourceVersion, generated selector and controller-uid labels made
// kubectl create refuse it). Both fail before the fix. The printed pipeline is run through a
// real kubectl patch --local when kubectl is on PATH.
func TestNewJobPipelineActsAsTheUserAndTakesAnExportedJob(t *testing.T) {
	live := stored(manifestJob())
	exported := stored(manifestJob())
	exported.Spec.Template.Spec.Containers[0].Image = "busybox:2"
	exported.Status = batchv1.JobStatus{}
	desired := writeYAML(t, "job.yaml", exported)
	r := runWithConfigFlags(t, "--live-file", writeYAML(t, "live.yaml", live), "-f", desired, "-n", "ns",
		"--context", "viewer", "--as", "jane", "--proxy-url", "http://127.0.0.1:1", "-o", "json")
	var rep jobdiff.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("code %d: %v\n%s", r.code, err, r.stderr)
	}
	var pipe string
	for _, s := range rep.Plan {
		for _, c := range s.Commands {
			if strings.Contains(c, " | ") {
				pipe = c
			}
		}
	}
	if pipe == "" {
		t.Fatalf("no pipeline in the plan:\n%s", r.stdout)
	}
	local, create, _ := strings.Cut(pipe, " | ")
	for _, step := range []string{local, create} {
		for _, w := range []string{"--context=viewer", "--as=jane", "--proxy-url=http://127.0.0.1:1"} {
			if strings.Count(step, w) != 1 {
				t.Errorf("%s not once in %q", w, step)
			}
		}
	}
	for _, w := range []string{`"resourceVersion":null`, `"selector":null`, `"controller-uid":null`, `"job-name":null`} {
		if !strings.Contains(local, w) {
			t.Errorf("%s missing from %s", w, local)
		}
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		return
	}
	// kubectl patch --local reads no cluster; only the connection flags are left out here, as
	// the kubeconfig of this test has no such context.
	cmd := exec.Command("sh", "-c", strings.NewReplacer("--context=viewer ", "", "--as=jane ", "", "--proxy-url=http://127.0.0.1:1 ", "").Replace(local)+" -o json")
	cmd.Dir = filepath.Dir(desired)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", local, err)
	}
	var j batchv1.Job
	if err := json.Unmarshal(out, &j); err != nil {
		t.Fatal(err)
	}
	if j.ResourceVersion != "" || j.Spec.Selector != nil || j.Spec.Template.Labels["controller-uid"] != "" || j.Labels["job-name"] != "" || j.Name == live.Name {
		t.Errorf("the new Job still holds what the server set: %+v %+v %v", j.ObjectMeta, j.Spec.Selector, j.Spec.Template.Labels)
	}
}
