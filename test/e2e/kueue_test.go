//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// The Kueue scenarios (issue 33) run against the real Kueue controller manager (v0.17.0, built
// by test/cluster/build-kueue.sh), started once in the shared control plane by the first test
// that needs it. Jobs are created suspended with the queue label, as Kueue's own integration
// tests create them: the harness runs no admission webhook (docs/control-plane.md). Each
// scenario has its own namespace and ClusterQueue, so they run in parallel.

var (
	kueueOnce sync.Once
	kueueErr  error
)

// RequireKueue starts Kueue in the harness's cluster (once), or skips the test on an external
// cluster that does not serve Kueue's Workloads.
func RequireKueue(t *testing.T) {
	t.Helper()
	RequirePlugin(t)
	if env.Cluster == nil {
		if r := Kubectl(t, "get", "crd", "workloads.kueue.x-k8s.io"); r.ExitCode != 0 {
			t.Skip("the cluster of E2E_KUBECONFIG does not serve Kueue's Workloads (make cluster-up INDEXED_KUEUE=1)")
		}
		return
	}
	if os.Getenv("E2E_SKIP_BUILD") != "" && os.Getenv("E2E_REQUIRE_KUEUE") == "" && harness.CheckKueue(env.ClusterBinDir) != nil {
		// make e2e: the Kueue scenarios are make e2e-kueue's stage, which builds the manager.
		t.Skip("the Kueue manager is not built: make e2e-kueue (or make kueue-bins) runs these scenarios")
	}
	kueueOnce.Do(func() {
		if os.Getenv("E2E_SKIP_BUILD") == "" {
			cmd := exec.Command("bash", "test/cluster/build-kueue.sh")
			cmd.Dir = env.RepoRoot
			out, err := cmd.CombinedOutput()
			if err != nil {
				kueueErr = fmt.Errorf("build-kueue.sh: %v\n%s", err, out)
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		kueueErr = env.Cluster.StartKueue(ctx)
	})
	if kueueErr != nil {
		t.Fatalf("starting Kueue: %v", kueueErr)
	}
}

// kueueQueues makes a ResourceFlavor (shared), a ClusterQueue named after ns with cpu quota
// for quota pods of 1 CPU (preemption of lower priorities within it) and LocalQueue "lq" in ns.
func kueueQueues(t *testing.T, ns string, quota int) string {
	t.Helper()
	cq := "cq-" + ns
	manifest := fmt.Sprintf(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: %[1]s
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: %[3]d
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: lq
  namespace: %[2]s
spec:
  clusterQueue: %[1]s
`, cq, ns, quota)
	r := Run(t, Cmd{Args: []string{"apply", "--server-side", "-f", "-"}, Stdin: manifest})
	if r.ExitCode != 0 {
		t.Fatalf("creating Kueue's queues:\n%s", r)
	}
	t.Cleanup(func() { Kubectl(t, "delete", "clusterqueue", cq, "--wait=false") })
	return cq
}

// queuedJob is an Indexed Job of n pods of 1 CPU in LocalQueue lq, created suspended.
func queuedJob(name string, n int, runTime string, extra string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  labels:
    kueue.x-k8s.io/queue-name: lq
%s
spec:
  suspend: true
  completionMode: Indexed
  completions: %d
  parallelism: %d
  backoffLimitPerIndex: 0
  template:
    metadata:
      annotations:
        scenario.indexed.kubectl.io/run-time: %q
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: registry.example/worker:1
        resources:
          requests:
            cpu: "1"
`, name, extra, n, n, runTime)
}

// statusQueue runs status -o json and returns the report's queue.
func statusQueue(t *testing.T, ns, name string) (*kueue.Queue, map[string]any) {
	t.Helper()
	r := KubectlIndexed(t, "status", name, "-n", ns, "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("status -o json failed:\n%s", r)
	}
	var rep struct {
		Queue *kueue.Queue `json:"queue"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("status -o json does not parse: %v\n%s", err, r.Stdout)
	}
	var all map[string]any
	_ = json.Unmarshal([]byte(r.Stdout), &all)
	if rep.Queue == nil {
		t.Fatalf("status -o json has no queue for a Kueue Job:\n%s", r.Stdout)
	}
	return rep.Queue, all
}

// waitQueue polls status -o json until ok says yes.
func waitQueue(t *testing.T, ns, name string, timeout time.Duration, what string, ok func(*kueue.Queue) bool) *kueue.Queue {
	t.Helper()
	var last *kueue.Queue
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, timeout, true, func(context.Context) (bool, error) {
		last, _ = statusQueue(t, ns, name)
		return ok(last), nil
	})
	if err != nil {
		b, _ := json.MarshalIndent(last, "", "  ")
		t.Fatalf("job %s: %s did not happen within %s; last queue:\n%s", name, what, timeout, b)
	}
	return last
}

func condReason(q *kueue.Queue, typ string) (status, reason, message string) {
	for _, c := range q.Conditions {
		if c.Type == typ {
			return c.Status, c.Reason, c.Message
		}
	}
	return "", "", ""
}

// TestKueueQueue: A (2 pods) takes the ClusterQueue's quota of 2 CPUs and runs, B waits and
// status says why in Kueue's words; A finishes and B is admitted (status --wait sees it run);
// C, of a higher WorkloadPriorityClass, preempts B and status B says so.
func TestKueueQueue(t *testing.T) {
	RequireKueue(t)
	t.Parallel()
	ns := NewNamespace(t)
	cq := kueueQueues(t, ns, 2)
	CreateJob(t, ns, queuedJob("a", 2, "25s", ""))
	waitQueue(t, ns, "a", 90*time.Second, "A admitted", func(q *kueue.Queue) bool { return q.State == "Admitted" })
	b := CreateJob(t, ns, queuedJob("b", 2, "never", ""))

	q := waitQueue(t, ns, "b", 60*time.Second, "B pending with Kueue's reason", func(q *kueue.Queue) bool {
		st, _, msg := condReason(q, kueue.CondQuotaReserved)
		return q.State == "Pending" && st == "False" && msg != ""
	})
	if q.ClusterQueue != cq || q.LocalQueue != "lq" || q.Workload == "" {
		t.Errorf("status B -o json: queue %q → %q, workload %q; want lq → %s and a Workload", q.LocalQueue, q.ClusterQueue, q.Workload, cq)
	}
	if len(q.WaitsFor) != 1 || q.WaitsFor[0].Job != "a" || q.WaitsFor[0].Pods != 2 {
		t.Errorf("status B -o json: waitsFor %+v; want A's Workload with its 2 pods", q.WaitsFor)
	}
	_, reason, msg := condReason(q, kueue.CondQuotaReserved)
	if !strings.Contains(msg, "insufficient unused quota for cpu") {
		t.Errorf("QuotaReserved message %q does not say the quota is used", msg)
	}
	text := KubectlIndexed(t, "status", "b", "-n", ns)
	if text.ExitCode != 0 {
		t.Fatalf("status b:\n%s", text)
	}
	for _, want := range []string{"Queue:", "ClusterQueue " + cq, "QuotaReserved=False " + reason, "insufficient unused quota for cpu", "Kueue admits the Workload when ClusterQueue " + cq, "it waits for Job a (Workload ", "Position:"} {
		if !strings.Contains(text.Stdout, want) {
			t.Errorf("status b does not say %q:\n%s", want, text.Stdout)
		}
	}
	if strings.Contains(text.Stdout, `"suspend":false`) {
		t.Errorf("status b tells the user to resume a Kueue Job:\n%s", text.Stdout)
	}
	t.Logf("status b while A runs:\n%s", text.Stdout)
	ls := KubectlIndexed(t, "list", "-n", ns)
	t.Logf("list while B waits:\n%s", ls.Stdout)
	if !strings.Contains(ls.Stdout, "QUEUE") || !strings.Contains(ls.Stdout, "ADMISSION") {
		t.Errorf("list has no QUEUE and ADMISSION columns for Kueue Jobs:\n%s", ls)
	}
	var lj struct {
		Items []struct{ Namespace, Name, Queue, Admission string } `json:"items"`
	}
	if err := json.Unmarshal([]byte(KubectlIndexed(t, "list", "-A", "-o", "json").Stdout), &lj); err != nil {
		t.Fatalf("list -A -o json: %v", err)
	}
	// -A: the other Kueue scenarios run at once in their own namespaces, with Jobs of the same
	// names (their own a and b), so only this namespace's rows count.
	states := map[string]string{}
	for _, it := range lj.Items {
		if it.Namespace == ns && it.Queue == "lq" {
			states[it.Name] = it.Admission
		}
	}
	if states["a"] != "Admitted" || states["b"] != "Pending" {
		t.Errorf("list -A -o json: admission states %v; want a Admitted, b Pending", states)
	}

	// A finishes; B is admitted and runs: --wait --timeout follows it until it is running.
	w := Run(t, Cmd{Args: []string{"indexed", "status", "b", "-n", ns, "--watch", "--timeout", "60s"}, Timeout: 2 * time.Minute})
	t.Logf("status b --watch (exit %d):\n%s", w.ExitCode, w.Stdout)
	if !strings.Contains(w.Stdout, "Admitted") && !strings.Contains(w.Stdout, "Running") {
		t.Errorf("status b --watch did not show the admission:\n%s", w)
	}
	q = waitQueue(t, ns, "b", 60*time.Second, "B admitted", func(q *kueue.Queue) bool { return q.State == "Admitted" })
	if len(q.PodSets) != 1 || q.PodSets[0].Admitted == nil || *q.PodSets[0].Admitted != 2 || q.PodSets[0].Flavors["cpu"] != "default-flavor" {
		t.Errorf("B's admission: %+v; want 2 pods of flavor default-flavor", q.PodSets)
	}
	WaitForJob(t, ns, "b", 60*time.Second, "B's 2 pods running", func(j *batchv1.Job, _ []corev1.Pod) bool { return j.Status.Active == 2 })

	// C preempts B.
	c := CreateJob(t, ns, queuedJob("c", 2, "never", "    kueue.x-k8s.io/priority-class: high"))
	q = waitQueue(t, ns, "b", 90*time.Second, "B preempted", func(q *kueue.Queue) bool { return q.PreemptedBy != nil })
	cq2, _ := statusQueue(t, ns, "c")
	var cUID string
	if r := MustKubectl(t, "get", "workloads.kueue.x-k8s.io", "-n", ns, cq2.Workload, "-o", "jsonpath={.metadata.uid}"); true {
		cUID = strings.TrimSpace(r.Stdout)
	}
	if q.PreemptedBy.WorkloadUID != cUID || q.PreemptedBy.JobUID != string(c.UID) {
		t.Errorf("B preempted by %+v; want C's Workload %s (UID %s, Job UID %s)", q.PreemptedBy, cq2.Workload, cUID, c.UID)
	}
	WaitForJob(t, ns, "b", 60*time.Second, "B suspended with no pod left", func(j *batchv1.Job, pods []corev1.Pod) bool {
		return j.Spec.Suspend != nil && *j.Spec.Suspend && j.Status.Active == 0 && len(pods) == 0
	})
	text = KubectlIndexed(t, "status", "b", "-n", ns)
	t.Logf("status b after C preempted it:\n%s", text.Stdout)
	for _, want := range []string{"Preempted", cUID, "Evictions:"} {
		if !strings.Contains(text.Stdout, want) {
			t.Errorf("status b after preemption does not say %q:\n%s", want, text.Stdout)
		}
	}
	var rep struct {
		Counters struct {
			Failed int32 `json:"failed"`
		} `json:"counters"`
		Summary map[string]any `json:"summary"`
	}
	js := KubectlIndexed(t, "status", "b", "-n", ns, "-o", "json")
	_ = json.Unmarshal([]byte(js.Stdout), &rep)
	if rep.Counters.Failed != 0 {
		t.Errorf("B's pods deleted by Kueue's eviction are counted as failed: counters.failed %d", rep.Counters.Failed)
	}
	if f, _ := rep.Summary["failed"].(float64); f != 0 {
		t.Errorf("status b counts %v failed indexes after the eviction: %v", f, rep.Summary)
	}
	_ = b
}

// TestKueuePartialAdmission: a Job of parallelism 4 with job-min-parallelism 1 in a queue of 2
// CPUs is admitted with 2 pods; status says 2 of 4.
func TestKueuePartialAdmission(t *testing.T) {
	RequireKueue(t)
	t.Parallel()
	ns := NewNamespace(t)
	kueueQueues(t, ns, 2)
	CreateJob(t, ns, strings.Replace(queuedJob("p", 4, "never", ""), "  labels:\n", "  annotations:\n    kueue.x-k8s.io/job-min-parallelism: \"1\"\n  labels:\n", 1))
	q := waitQueue(t, ns, "p", 90*time.Second, "P admitted", func(q *kueue.Queue) bool { return q.State == "Admitted" })
	if q.AdmittedParallelism == nil || *q.AdmittedParallelism != 2 || q.RequestedParallelism == nil || *q.RequestedParallelism != 4 {
		t.Errorf("partial admission: admitted %v of requested %v; want 2 of 4", q.AdmittedParallelism, q.RequestedParallelism)
	}
	text := KubectlIndexed(t, "status", "p", "-n", ns)
	t.Logf("status p:\n%s", text.Stdout)
	if !strings.Contains(text.Stdout, "admitted parallelism 2 of 4 requested") {
		t.Errorf("status p does not show the partial admission:\n%s", text.Stdout)
	}

	// create --queue: the Job is made suspended with the queue label and gets a Workload of its
	// own. It asks 2 pods of 3 CPUs from a queue of 2, so Kueue can never admit it: were it
	// to ask what P holds, its priority (high, 1000) would let Kueue preempt P, admit it and
	// unsuspend it before the GET below, and the check of suspend would race Kueue.
	manifest, _, _ := createFiles(t, "queued", 4, 2, nil)
	cr := KubectlIndexed(t, "create", "queued", "-n", ns, "--manifest", manifest, "--image", "registry.example/eval:1", "--requests", "cpu=3", "--queue", "lq", "--priority-class", "high")
	if cr.ExitCode != 0 {
		t.Fatalf("create --queue:\n%s", cr)
	}
	j := GetJob(t, ns, "queued")
	if j.Labels[kueue.QueueLabel] != "lq" || j.Labels[kueue.PriorityClassLabel] != "high" || j.Spec.Suspend == nil || !*j.Spec.Suspend {
		t.Errorf("create --queue lq --priority-class high made labels %v, suspend %v", j.Labels, strPtrBool(j.Spec.Suspend))
	}
	q = waitQueue(t, ns, "queued", 60*time.Second, "a Workload for the created Job", func(q *kueue.Queue) bool { return q.Workload != "" })
	if q.PriorityClass != "WorkloadPriorityClass/high" || q.Priority == nil || *q.Priority != 1000 {
		t.Errorf("the created Job's Workload: priority class %q value %v; want WorkloadPriorityClass/high 1000", q.PriorityClass, q.Priority)
	}
}

// TestKueueRetryAndViewer: a Kueue Job with a failed index; retry --indexes failed makes a Job
// with the queue label, suspended, that Kueue admits through the same ClusterQueue with a
// Workload of its own. A viewer who may read Jobs and pods but not Workloads gets the report
// and one line.
func TestKueueRetryAndViewer(t *testing.T) {
	RequireKueue(t)
	RequireViewer(t)
	t.Parallel()
	ns := NewNamespace(t)
	cq := kueueQueues(t, ns, 2)
	manifest := strings.Replace(queuedJob("r", 2, "1s", ""), "        scenario.indexed.kubectl.io/run-time: \"1s\"\n",
		"        scenario.indexed.kubectl.io/run-time: \"1s\"\n        scenario.indexed.kubectl.io/exit-code.1: \"3\"\n", 1)
	CreateJob(t, ns, manifest)
	WaitForFinished(t, ns, "r", 2*time.Minute)
	rr := KubectlIndexed(t, "retry", "r", "-n", ns, "--indexes", "failed")
	if rr.ExitCode != 0 {
		t.Fatalf("retry r --indexes failed:\n%s", rr)
	}
	t.Logf("retry:\n%s", rr.Stdout)
	jobs, err := env.Client.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var retries []string
	for _, j := range jobs.Items {
		if j.Name == "r" {
			continue
		}
		retries = append(retries, j.Name)
		if j.Labels[kueue.QueueLabel] != "lq" {
			t.Errorf("retry Job %s has queue label %q; want lq", j.Name, j.Labels[kueue.QueueLabel])
		}
	}
	if len(retries) == 0 {
		t.Fatalf("retry made no Job")
	}
	seen := map[string]bool{}
	for _, name := range retries {
		q := waitQueue(t, ns, name, 90*time.Second, "the retry admitted", func(q *kueue.Queue) bool { return q.State == "Admitted" || q.State == "Finished" })
		if q.ClusterQueue != cq || q.Workload == "" || seen[q.Workload] {
			t.Errorf("retry Job %s: ClusterQueue %q Workload %q; want %s and a Workload of its own", name, q.ClusterQueue, q.Workload, cq)
		}
		seen[q.Workload] = true
	}

	GrantViewer(t, ns, "jobs-pods", []rbacv1.PolicyRule{{APIGroups: []string{"", "batch"}, Resources: []string{"jobs", "pods"}, Verbs: []string{"get", "list", "watch"}}})
	v := Run(t, Cmd{Args: []string{"indexed", "status", "r", "-n", ns}, Kubeconfig: env.ViewerKubeconfig})
	t.Logf("status r as the viewer:\n%s", v)
	if v.ExitCode != 0 {
		t.Fatalf("status as a viewer without Workload access exits %d; want 0:\n%s", v.ExitCode, v)
	}
	if n := strings.Count(v.Stdout, "not allowed to list workloads.kueue.x-k8s.io"); n != 1 {
		t.Errorf("status as the viewer says %d times that Workloads cannot be read; want one line:\n%s", n, v.Stdout)
	}
}

func strPtrBool(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

// TestKueueStatusRequests (issue 33): the status read of a Kueue Job costs at most one request
// more than a plain Job's, counted by a proxy in front of the API server. In one namespace: a
// plain Indexed Job running (the floor: a Job GET and a pod LIST), A admitted and running (its
// Workload LIST by the job-uid label; Kueue's suspend flip does not make status read every pod
// again), and B waiting for quota (one LIST of the namespace's Workloads, which also names A
// as the holder and A's admission its ClusterQueue, and the visibility GET; a suspended Job
// whose status counts no pod is not LISTed).
func TestKueueStatusRequests(t *testing.T) {
	RequireKueue(t)
	t.Parallel()
	ns := NewNamespace(t)
	cq := kueueQueues(t, ns, 2)
	plain := strings.Replace(strings.Replace(queuedJob("plain", 1, "never", ""), "    kueue.x-k8s.io/queue-name: lq\n", "    app: plain\n", 1), "suspend: true", "suspend: false", 1)
	CreateJob(t, ns, plain)
	CreateJob(t, ns, queuedJob("a", 2, "never", ""))
	waitQueue(t, ns, "a", 90*time.Second, "A admitted", func(q *kueue.Queue) bool { return q.State == "Admitted" })
	CreateJob(t, ns, queuedJob("b", 2, "never", ""))
	waitQueue(t, ns, "b", 60*time.Second, "B pending", func(q *kueue.Queue) bool { return q.State == "Pending" })
	for _, name := range []string{"plain", "a"} {
		WaitForJob(t, ns, name, time.Minute, "its pods running", func(j *batchv1.Job, _ []corev1.Pod) bool {
			return j.Status.Active == *j.Spec.Parallelism && j.Status.Ready != nil && *j.Status.Ready == j.Status.Active
		})
	}

	p := startLossyAPI(t, func(int) bool { return false })
	kc := p.kubeconfig(t)
	count := map[string][]string{}
	for _, name := range []string{"plain", "a", "b"} {
		r := Run(t, Cmd{Args: []string{"indexed", "status", name, "-n", ns}, Kubeconfig: kc})
		count[name] = p.requests()
		t.Logf("status %s: %d requests\n  %s", name, len(count[name]), strings.Join(count[name], "\n  "))
		if r.ExitCode != 0 {
			t.Fatalf("status %s through the proxy:\n%s", name, r)
		}
		if name == "b" {
			for _, want := range []string{"ClusterQueue " + cq, "it waits for Job a (Workload "} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("status b does not say %q:\n%s", want, r.Stdout)
				}
			}
		}
	}
	for _, name := range []string{"a", "b"} {
		if len(count[name]) > len(count["plain"])+1 {
			t.Errorf("status %s made %d requests, a plain Job's %d: more than one more", name, len(count[name]), len(count["plain"]))
		}
	}
}

// TestKueueNeverAdmitted (issue 33, lint): a Job of 3 pods of 1 CPU in a ClusterQueue of 2 CPUs.
// The real Kueue keeps its Workload pending with "insufficient quota ... > maximum capacity";
// lint --queues, given the cluster's queues as kubectl prints them, reports
// kueue-never-admitted for that Job and not for a Job of 2 pods.
func TestKueueNeverAdmitted(t *testing.T) {
	RequireKueue(t)
	t.Parallel()
	ns := NewNamespace(t)
	cq := kueueQueues(t, ns, 2)
	big := strings.Replace(queuedJob("big", 3, "never", ""), "metadata:\n  name: big", "metadata:\n  name: big\n  namespace: "+ns, 1)
	fits := strings.Replace(queuedJob("fits", 2, "never", ""), "metadata:\n  name: fits", "metadata:\n  name: fits\n  namespace: "+ns, 1)
	CreateJob(t, ns, big)
	q := waitQueue(t, ns, "big", 60*time.Second, "Kueue's verdict on big", func(q *kueue.Queue) bool {
		_, _, msg := condReason(q, kueue.CondQuotaReserved)
		return msg != ""
	})
	_, reason, msg := condReason(q, kueue.CondQuotaReserved)
	t.Logf("Kueue on big: QuotaReserved %s: %s", reason, msg)
	if !strings.Contains(msg, "insufficient quota for cpu") || !strings.Contains(msg, "> maximum capacity") {
		t.Errorf("Kueue's message %q does not say the request exceeds the maximum capacity", msg)
	}
	qs := Kubectl(t, "get", "clusterqueues,localqueues", "-A", "-o", "yaml")
	if qs.ExitCode != 0 {
		t.Fatalf("kubectl get clusterqueues,localqueues:\n%s", qs)
	}
	dir := t.TempDir()
	qf := dir + "/queues.yaml"
	if err := os.WriteFile(qf, []byte(qs.Stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, manifest string
		want           bool
	}{{"big", big, true}, {"fits", fits, false}} {
		f := dir + "/" + tc.name + ".yaml"
		if err := os.WriteFile(f, []byte(tc.manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		r := KubectlIndexed(t, "lint", "--queues", qf, f, "-o", "json")
		got := strings.Contains(r.Stdout, `"rule": "kueue-never-admitted"`)
		t.Logf("lint --queues %s: exit %d, kueue-never-admitted %v", tc.name, r.ExitCode, got)
		if got != tc.want || r.ExitCode != 0 {
			t.Errorf("lint --queues on %s: kueue-never-admitted %v, want %v (exit %d)\n%s", tc.name, got, tc.want, r.ExitCode, r)
		}
		if tc.want && !strings.Contains(r.Stdout, "ClusterQueue "+cq+" can never admit its 3 pods") {
			t.Errorf("lint does not name ClusterQueue %s:\n%s", cq, r.Stdout)
		}
	}
}
