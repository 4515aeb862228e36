//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/joblist"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// runShellEnv is runShell with variables added to the environment (the ones a printed
// command's placeholders name).
func runShellEnv(t *testing.T, line string, env ...string) Result {
	t.Helper()
	faultCases.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+filepath.Join(os.TempDir(), "no-such-kubeconfig")), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := Result{Args: []string{"sh", "-c", line}, Stdout: out.String(), Stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.ExitCode = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestIssue35PrintedCommandsKeepTheIdentity (issue 35 item 2): status run with the admin
// kubeconfig but --token of the limited user "viewer" (or --as viewer) prints a retry command
// that acts as viewer, not as the kubeconfig's admin: --token as the placeholder "$TOKEN" (the
// token itself never printed), --as with its value. Run as printed, with TOKEN set, the retry
// is denied for viewer and nothing is created. Before, --token was dropped and the printed
// retry created cr-r1-1 and cr-r1-3 as admin.
func TestIssue35PrintedCommandsKeepTheIdentity(t *testing.T) {
	t.Parallel()
	RequireViewer(t)
	ns := NewNamespace(t)
	if r := Run(t, Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: crJob}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply:\n%s", r)
	}
	WaitForFinished(t, ns, "cr", 3*time.Minute)
	GrantViewer(t, ns, "read", []rbacv1.PolicyRule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods", "pods/log", "configmaps"}, Verbs: []string{"get", "list", "watch"}},
	})
	vcfg, err := clientcmd.LoadFromFile(env.ViewerKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	token := currentUser(vcfg).Token
	if token == "" {
		t.Skip("the limited user has no token")
	}
	kc := "--kubeconfig=" + env.Kubeconfig
	before := takeFaultState(t, ns)
	for _, tc := range []struct {
		flags []string
		word  string
		env   []string
	}{
		{[]string{"--token", token}, `--token="$TOKEN"`, []string{"TOKEN=" + token}},
		{[]string{"--as", "viewer"}, "--as=viewer", nil},
	} {
		st := statusJSON(t, append([]string{"cr", "-n", ns, kc}, tc.flags...)...)
		e := nextEntry(st, indexstatus.EntryRetryShards)
		if e == nil || !strings.Contains(e.Command, tc.word) || strings.Contains(e.Command, token) {
			t.Fatalf("%s: retry command %+v", tc.word, e)
		}
		rr := runShellEnv(t, e.Command, tc.env...)
		if rr.ExitCode != 4 || !strings.Contains(rr.Stderr, "permission denied") {
			t.Errorf("%s: printed retry, want it denied for viewer:\n%s", tc.word, rr)
		}
		if strings.Contains(rr.Stdout+rr.Stderr, token) {
			t.Errorf("%s: the token is printed", tc.word)
		}
	}
	assertUnchanged(t, ns, before)
}

// lrTemplateAnnotations make shards 2 and 4 of lr fail (exit 1 on every attempt).
var lrTemplateAnnotations = map[string]string{"scenario.indexed.kubectl.io/exit-code.2": "1", "scenario.indexed.kubectl.io/exit-code.4": "1"}

// TestIssue35ReplacedRoot (issue 35 item 1, item 6 and the LOW items on list's nesting and the
// whole-run command): lr, made by create, fails shards 2 and 4; retry lr makes lr-r1, which
// succeeds them. The same retry run again, before and after lr-r1 finished (as after an
// interrupted run), creates nothing and exits 0. Then lr is deleted and a new lr made from
// revision 2, which succeeds. status lr-r1 --lineage reports lr-r1's run: 2 of 6 shards with a
// result, exit 1, not complete (before: "6 of 6 shards succeeded", exit 0, from the new lr);
// list does not nest lr-r1 under the new lr; status lr-r1 names status lr-r1 --lineage.
func TestIssue35ReplacedRoot(t *testing.T) {
	t.Parallel()
	ns := NewNamespace(t)
	kc := "--kubeconfig=" + env.Kubeconfig
	manifest, template, _ := createFiles(t, "lr", 12, 6, lrTemplateAnnotations)
	if r := KubectlIndexed(t, "create", "lr", "-n", ns, "--manifest", manifest, "--from-job", template); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	if j := WaitForFinished(t, ns, "lr", 3*time.Minute); j.Status.FailedIndexes == nil || *j.Status.FailedIndexes != "2,4" {
		t.Fatalf("lr: %s", DescribeState(j, GetPods(t, ns, "lr")))
	}
	retry := []string{"retry", "lr", "-n", ns, kc,
		"--pod-annotation", "scenario.indexed.kubectl.io/exit-code.2-", "--pod-annotation", "scenario.indexed.kubectl.io/exit-code.4-"}
	expect(t, indexed(t, retry...), 0, "job.batch/lr-r1 created")
	// Run again at once (the first run as if cut short after its Job was created), then after
	// lr-r1 finished: no lr-r2.
	expect(t, indexed(t, retry...), 0, "job.batch/lr-r1 unchanged", `job lr-r1 of job "lr" already exists`, "it covers indexes 2,4")
	WaitForCondition(t, ns, "lr-r1", batchv1.JobComplete, 3*time.Minute)
	expect(t, indexed(t, retry...), 0, "job.batch/lr-r1 unchanged")
	if got := jobNames(t, ns); !slices.Equal(got, []string{"lr", "lr-r1"}) {
		t.Fatalf("Jobs after the retry run three times: %v, want lr, lr-r1", got)
	}

	// lr deleted, and made again from another revision of the manifest.
	MustKubectl(t, "delete", "job", "lr", "-n", ns, "--wait=true", "--timeout=2m")
	manifest2, template2, _ := createFiles(t, "lr", 18, 6, nil)
	if r := KubectlIndexed(t, "create", "lr", "-n", ns, "--manifest", manifest2, "--from-job", template2); r.ExitCode != 0 {
		t.Fatalf("create of the new lr:\n%s", r)
	}
	WaitForCondition(t, ns, "lr", batchv1.JobComplete, 3*time.Minute)

	r := KubectlIndexed(t, "status", "lr-r1", "-n", ns, "--lineage", "--exit-code", "-o", "json")
	var rep lineage.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("status --lineage: %v\n%s", err, r)
	}
	if r.ExitCode != 1 || rep.Complete || rep.Shards != 6 || rep.Summary.Succeeded != 2 || len(rep.Jobs) != 1 || rep.Jobs[0].Name != "lr-r1" ||
		!strings.HasPrefix(rep.Verdict, "2 of 6 shards succeeded") {
		t.Errorf("status lr-r1 --lineage: exit %d complete=%v shards=%d succeeded=%d jobs=%+v\n%q\n%s", r.ExitCode, rep.Complete, rep.Shards, rep.Summary.Succeeded, rep.Jobs, rep.Verdict, r.Stderr)
	}
	// The new lr's own run is complete, without lr-r1.
	if r := KubectlIndexed(t, "status", "lr", "-n", ns, "--lineage", "--exit-code"); r.ExitCode != 0 || !strings.Contains(r.Stdout, "6 of 6 shards succeeded") {
		t.Errorf("status lr --lineage:\n%s", r)
	}

	// list: lr-r1 is not shown as a retry of the new lr.
	r = KubectlIndexed(t, "list", "-n", ns, "-o", "json")
	var l joblist.List
	if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
		t.Fatalf("list: %v\n%s", err, r)
	}
	for _, row := range l.Items {
		if row.Name == "lr-r1" && row.Depth != 0 {
			t.Errorf("list nests lr-r1 under the new lr: %+v", l.Items)
		}
	}
	// status lr-r1 names a whole-run command that works with its root gone.
	var cmd string
	for _, n := range statusJSON(t, "lr-r1", "-n", ns).Notes {
		if strings.Contains(n, "The whole run: ") {
			cmd = commandAfter(t, n, "The whole run: ")
		}
	}
	if !strings.HasPrefix(cmd, "kubectl indexed status lr-r1 --lineage") {
		t.Errorf("whole-run command %q", cmd)
	} else if rr := Run(t, Cmd{Args: strings.Fields(cmd)[1:]}); rr.ExitCode != 0 {
		t.Errorf("whole-run command:\n%s", rr)
	}
}

// TestIssue35StorePerRun (issue 35 item 7): two runs of one manifest, s2 and s3, retry the same
// shards. Each retry mounts a store of its own, labelled for its root: the selector root-job=s3
// finds the store s3-r1 mounts, and deleting s2's run by its label leaves it. Before, s3-r1
// mounted the store made for s2-r1, labelled root-job=s2.
func TestIssue35StorePerRun(t *testing.T) {
	t.Parallel()
	ns := NewNamespace(t)
	ctx := context.Background()
	manifest, template, _ := createFiles(t, "st", 12, 6, map[string]string{"scenario.indexed.kubectl.io/exit-code.2": "1"})
	for _, root := range []string{"s2", "s3"} {
		if r := KubectlIndexed(t, "create", root, "-n", ns, "--manifest", manifest, "--from-job", template); r.ExitCode != 0 {
			t.Fatalf("create %s:\n%s", root, r)
		}
	}
	store := map[string]string{}
	for _, root := range []string{"s2", "s3"} {
		WaitForFinished(t, ns, root, 3*time.Minute)
		if r := KubectlIndexed(t, "retry", root, "-n", ns, "--pod-annotation", "scenario.indexed.kubectl.io/run-time=never"); r.ExitCode != 0 {
			t.Fatalf("retry %s:\n%s", root, r)
		}
		store[root] = GetJob(t, ns, root+"-r1").Annotations[shards.AnnotationShardsConfigMap]
	}
	if store["s2"] == store["s3"] {
		t.Fatalf("s2-r1 and s3-r1 mount the same store %s", store["s3"])
	}
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, store["s3"], metav1.GetOptions{})
	if err != nil || cm.Labels[shards.LabelRootJob] != "s3" {
		t.Fatalf("store of s3-r1: %v labels %v", err, cm.Labels)
	}
	if r := MustKubectl(t, "get", "configmaps", "-n", ns, "-l", shards.LabelRootJob+"=s3", "-o", "name"); !strings.Contains(r.Stdout, "configmap/"+store["s3"]+"\n") {
		t.Errorf("the documented selector misses s3-r1's store:\n%s", r)
	}
	MustKubectl(t, "delete", "jobs,configmaps", "-n", ns, "-l", shards.LabelRootJob+"=s2", "--wait=true")
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, store["s3"], metav1.GetOptions{}); err != nil {
		t.Errorf("deleting s2's run by label took s3-r1's store: %v", err)
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, store["s2"], metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("s2-r1's store survived the deletion of s2's run: %v", err)
	}
}

// TestIssue35RetryRespectsThePolicy (issue 35 item 9): the seed's own Job, applied with kubectl
// (a FailIndex rule on exit 42; index 2 exits 42, index 4 exits 1 on both attempts). status
// offers index 4 and says why not 2; retry seed re-runs 4 only, live and offline (-f), and
// names the rule; --indexes 2,4 re-runs both, deliberately.
func TestIssue35RetryRespectsThePolicy(t *testing.T) {
	t.Parallel()
	ns := NewNamespace(t)
	var manifest string
	for _, d := range definitions() {
		if d.Name == "seed" {
			manifest = d.Manifest
		}
	}
	CreateJob(t, ns, manifest)
	WaitForFinished(t, ns, "seed", 3*time.Minute)
	kc := "--kubeconfig=" + env.Kubeconfig
	st := statusJSON(t, "seed", "-n", ns, kc)
	if e := nextEntry(st, indexstatus.EntryRetryShards); e == nil || e.Indexes.String() != "4" || e.Command != "kubectl indexed retry seed -n "+ns+" "+kc {
		t.Errorf("RetryShards = %+v", e)
	}
	if e := nextEntry(st, indexstatus.EntryFailedByPolicy); e == nil || e.Indexes.String() != "2" || !strings.Contains(e.Text, "FailIndex: exit code 42") ||
		!strings.Contains(e.Command, "--indexes 2,4") {
		t.Errorf("FailedByPolicy = %+v", e)
	}

	// Offline, from the saved Job and pods.
	dir := t.TempDir()
	job, pods := saveJSON(t, dir, ns, "job.json", "get", "job", "seed"), saveJSON(t, dir, ns, "pods.json", "get", "pods", "-l", "batch.kubernetes.io/job-name=seed")
	names := func(r Result) string {
		var l corev1.List
		if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
			t.Fatalf("%v\n%s", err, r)
		}
		var out []string
		for _, it := range l.Items {
			var j batchv1.Job
			if json.Unmarshal(it.Raw, &j) == nil && j.Kind == "Job" {
				out = append(out, j.Name)
			}
		}
		return strings.Join(out, ",")
	}
	r := KubectlIndexed(t, "retry", "-f", job, "--pods-file", pods, "--dry-run=client", "-o", "json")
	if got := names(r); r.ExitCode != 0 || got != "seed-r1-4" || !strings.Contains(r.Stderr, "rule 0 (FailIndex: exit code 42 in container worker)") {
		t.Errorf("retry -f: exit %d, Jobs %s\n%s", r.ExitCode, got, r.Stderr)
	}
	// Named, deliberately: both.
	r = KubectlIndexed(t, "retry", "seed", "-n", ns, "--indexes", "2,4", "--dry-run=client", "-o", "json")
	if got := names(r); r.ExitCode != 0 || got != "seed-r1-2,seed-r1-4" {
		t.Errorf("retry --indexes 2,4: exit %d, Jobs %s\n%s", r.ExitCode, got, r.Stderr)
	}
	// Live: index 4 only.
	r = KubectlIndexed(t, "retry", "seed", "-n", ns, "--pod-annotation", "scenario.indexed.kubectl.io/run-time=never")
	if r.ExitCode != 0 || r.Stdout != "job.batch/seed-r1-4 created\n" || !strings.Contains(r.Stderr, "FailIndex: exit code 42") {
		t.Errorf("retry seed:\n%s", r)
	}
	if got := jobNames(t, ns); !slices.Equal(got, []string{"seed", "seed-r1-4"}) {
		t.Errorf("Jobs: %v", got)
	}
}

// TestIssue35ForbiddenWatch (issue 35, LOW): a reader who may get and list Jobs and pods but
// not watch them runs status --watch on a running Job. The watch's 403 is final: the command
// says which watch it may not open and what to ask for, and never that it is "retrying".
func TestIssue35ForbiddenWatch(t *testing.T) {
	t.Parallel()
	RequireViewer(t)
	ns := NewNamespace(t)
	job := strings.Replace(strings.Replace(crJob, "name: cr}", "name: fw}", 1), "        scenario.indexed.kubectl.io/exit-code.1: \"1\"\n        scenario.indexed.kubectl.io/exit-code.3: \"1\"\n",
		"        scenario.indexed.kubectl.io/run-time: \"never\"\n", 1)
	if r := Run(t, Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: job}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply:\n%s", r)
	}
	GrantViewer(t, ns, "read-no-watch", []rbacv1.PolicyRule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"pods", "events"}, Verbs: []string{"get", "list"}},
	})
	r := Run(t, Cmd{Args: []string{"indexed", "status", "fw", "-n", ns, "--watch", "--timeout", "20s"}, Kubeconfig: env.ViewerKubeconfig, Timeout: time.Minute})
	t.Logf("status --watch without the watch verb:\n%s", r)
	if strings.Contains(r.Stderr, "retrying") {
		t.Errorf("a forbidden watch is said to be retried:\n%s", r.Stderr)
	}
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, "watch") {
		t.Errorf("status --watch without the watch verb: exit %d, want 4 and an error naming the watch:\n%s", r.ExitCode, r.Stderr)
	}
}

// TestIssue35UnknownShardCount (issue 35 item 5): uk, made by create, fails shards 2 and 4;
// retry uk makes uk-r1, which succeeds them. Then the root uk and every ConfigMap that holds
// the manifest (the root's store and the retry's) are deleted: the number of shards is no longer
// known. status uk-r1 --lineage --exit-code exits 1, not complete, and neither its verdict nor
// its text says "2 of 2 shards succeeded" (before, the headline and verdict did).
func TestIssue35UnknownShardCount(t *testing.T) {
	t.Parallel()
	ns := NewNamespace(t)
	manifest, template, _ := createFiles(t, "uk", 12, 6, lrTemplateAnnotations)
	if r := KubectlIndexed(t, "create", "uk", "-n", ns, "--manifest", manifest, "--from-job", template); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	WaitForFinished(t, ns, "uk", 3*time.Minute)
	expect(t, indexed(t, "retry", "uk", "-n", ns, "--pod-annotation", "scenario.indexed.kubectl.io/exit-code.2-", "--pod-annotation", "scenario.indexed.kubectl.io/exit-code.4-"), 0, "job.batch/uk-r1 created")
	WaitForCondition(t, ns, "uk-r1", batchv1.JobComplete, 3*time.Minute)
	MustKubectl(t, "delete", "job", "uk", "-n", ns, "--wait=true", "--timeout=2m")
	MustKubectl(t, "delete", "configmaps", "-n", ns, "--all")

	r := KubectlIndexed(t, "status", "uk-r1", "-n", ns, "--lineage", "--exit-code", "-o", "json")
	var rep lineage.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("status --lineage: %v\n%s", err, r)
	}
	if r.ExitCode != 1 || rep.Complete || strings.Contains(rep.Verdict, "2 of 2 shards") || !strings.Contains(rep.Verdict, "unknown") {
		t.Errorf("status uk-r1 --lineage with the shard count unknown: exit %d complete=%v verdict %q\n%s", r.ExitCode, rep.Complete, rep.Verdict, r.Stderr)
	}
	text := KubectlIndexed(t, "status", "uk-r1", "-n", ns, "--lineage")
	t.Logf("status uk-r1 --lineage:\n%s", text.Stdout)
	if strings.Contains(text.Stdout, "2 of 2") {
		t.Errorf("the text says 2 of 2:\n%s", text.Stdout)
	}
}
