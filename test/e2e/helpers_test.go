//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// Result is the outcome of one command.
type Result struct {
	Args     []string
	Stdout   string
	Stderr   string
	ExitCode int
}

func (r Result) String() string {
	return fmt.Sprintf("$ %s\nexit code %d\n--- stdout ---\n%s\n--- stderr ---\n%s", strings.Join(r.Args, " "), r.ExitCode, r.Stdout, r.Stderr)
}

// Cmd describes a kubectl invocation.
type Cmd struct {
	// Args follow "kubectl".
	Args []string
	// Stdin is fed to the command.
	Stdin string
	// Kubeconfig overrides $KUBECONFIG (the admin kubeconfig), e.g. env.ViewerKubeconfig.
	Kubeconfig string
	// Env adds variables (KEY=VALUE).
	Env []string
	// Timeout defaults to 2 minutes.
	Timeout time.Duration
}

// Run runs kubectl (v1.37.2, first on PATH) as described, capturing stdout, stderr and the exit
// code. Only a failure to run kubectl at all fails the test; a non-zero exit is returned.
func Run(t testing.TB, c Cmd) Result {
	t.Helper()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", c.Args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	cmd.Env = os.Environ()
	if c.Kubeconfig != "" {
		cmd.Env = append(cmd.Env, "KUBECONFIG="+c.Kubeconfig)
	}
	cmd.Env = append(cmd.Env, c.Env...)
	err := cmd.Run()
	r := Result{Args: append([]string{"kubectl"}, c.Args...), Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && ctx.Err() == nil:
		r.ExitCode = exitErr.ExitCode()
	default:
		t.Fatalf("running %s: %v (timeout %s)\n%s", strings.Join(r.Args, " "), err, timeout, r)
	}
	return r
}

// Kubectl runs `kubectl ARGS...` as the admin.
func Kubectl(t testing.TB, args ...string) Result {
	t.Helper()
	return Run(t, Cmd{Args: args})
}

// KubectlIndexed runs `kubectl indexed ARGS...` as the admin: kubectl finds the plugin on PATH.
// It fails the test at once if the plugin could not be built.
func KubectlIndexed(t testing.TB, args ...string) Result {
	t.Helper()
	RequirePlugin(t)
	return Run(t, Cmd{Args: append([]string{"indexed"}, args...)})
}

// MustKubectl is Kubectl that fails the test on a non-zero exit.
func MustKubectl(t testing.TB, args ...string) Result {
	t.Helper()
	r := Kubectl(t, args...)
	if r.ExitCode != 0 {
		t.Fatalf("command failed:\n%s", r)
	}
	return r
}

// RequirePlugin fails the test if kubectl-indexed could not be built.
func RequirePlugin(t testing.TB) {
	t.Helper()
	if env.PluginErr != nil {
		t.Fatalf("kubectl-indexed is not available: %v", env.PluginErr)
	}
}

// RequireViewer skips the test when the cluster has no limited user (external cluster).
func RequireViewer(t testing.TB) {
	t.Helper()
	if env.ViewerKubeconfig == "" {
		t.Skip("no limited-user kubeconfig: the cluster was not started by the harness")
	}
}

// NewNamespace creates a fresh namespace named after the test (with a random suffix), waits
// for its default service account, and deletes it when the test ends. When the test failed,
// the namespace's Jobs, pods and events are logged first.
func NewNamespace(t testing.TB) string {
	t.Helper()
	prefix := strings.ToLower(t.Name())
	prefix = strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, prefix)
	if len(prefix) > 40 {
		prefix = prefix[:40]
	}
	prefix = strings.Trim(prefix, "-") + "-"
	return createNamespace(t, metav1.ObjectMeta{GenerateName: prefix})
}

// NamedNamespace creates namespace name (it must not exist) like NewNamespace.
func NamedNamespace(t testing.TB, name string) string {
	t.Helper()
	return createNamespace(t, metav1.ObjectMeta{Name: name})
}

func createNamespace(t testing.TB, meta metav1.ObjectMeta) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: meta}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	name := ns.Name
	t.Cleanup(func() {
		if t.Failed() {
			dumpNamespace(t, name)
		}
		// Pods that stay Terminating by scenario (termination-delay) are removed at once.
		zero := int64(0)
		_ = env.Client.CoreV1().Pods(name).DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		bg := metav1.DeletePropagationBackground
		_ = env.Client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: &bg})
	})
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("namespace %s: default service account never created: %v", name, err)
	}
	return name
}

func dumpNamespace(t testing.TB, ns string) {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"get", "jobs,pods", "-n", ns, "-o", "wide", "--show-labels=false"},
		{"get", "jobs", "-n", ns, "-o", "jsonpath={range .items[*]}{.metadata.name}{\": \"}{.status}{\"\\n\"}{end}"},
		{"get", "events", "-n", ns, "--sort-by=.lastTimestamp"},
	} {
		r := Run(t, Cmd{Args: args})
		fmt.Fprintf(&b, "$ kubectl %s\n%s%s\n", strings.Join(args, " "), r.Stdout, r.Stderr)
	}
	if env.Cluster != nil {
		fmt.Fprintf(&b, "component logs: %s\n", env.Cluster.LogDir)
	}
	t.Logf("state of namespace %s at failure:\n%s", ns, b.String())
}

// CreateJob creates the Job in manifest (YAML or JSON) in namespace ns with `kubectl create -f -`
// and returns the created object. Scenario annotations on its pod template are validated first.
func CreateJob(t testing.TB, ns, manifest string) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(manifest), &job); err != nil {
		t.Fatalf("Job manifest does not parse: %v\n%s", err, manifest)
	}
	if err := harness.ValidateScenarioAnnotations(job.Spec.Template.Annotations); err != nil {
		t.Fatalf("bad scenario annotations: %v", err)
	}
	r := Run(t, Cmd{Args: []string{"create", "-n", ns, "-f", "-", "-o", "json"}, Stdin: manifest})
	if r.ExitCode != 0 {
		t.Fatalf("creating the Job failed:\n%s", r)
	}
	var created batchv1.Job
	if err := json.Unmarshal([]byte(r.Stdout), &created); err != nil {
		t.Fatalf("kubectl create -o json output does not parse: %v\n%s", err, r.Stdout)
	}
	return &created
}

// JobJSON returns `kubectl get job NAME -n NS -o json` exactly as kubectl prints it.
func JobJSON(t testing.TB, ns, name string) []byte {
	t.Helper()
	r := Run(t, Cmd{Args: []string{"get", "job", name, "-n", ns, "-o", "json"}})
	if r.ExitCode != 0 {
		t.Fatalf("getting job %s/%s:\n%s", ns, name, r)
	}
	return []byte(r.Stdout)
}

// PodsJSON returns the Job's pods as `kubectl get pods -l batch.kubernetes.io/job-name=NAME -o json`
// prints them (a v1 List of Pods, sorted by name).
func PodsJSON(t testing.TB, ns, jobName string) []byte {
	t.Helper()
	r := Run(t, Cmd{Args: []string{"get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name=" + jobName, "-o", "json"}})
	if r.ExitCode != 0 {
		t.Fatalf("getting pods of job %s/%s:\n%s", ns, jobName, r)
	}
	return []byte(r.Stdout)
}

// DecodeJob parses kubectl's JSON of a Job.
func DecodeJob(t testing.TB, data []byte) *batchv1.Job {
	t.Helper()
	var j batchv1.Job
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatalf("decoding Job JSON: %v", err)
	}
	return &j
}

// DecodePods parses kubectl's JSON list of Pods.
func DecodePods(t testing.TB, data []byte) []corev1.Pod {
	t.Helper()
	var l corev1.PodList
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatalf("decoding pod list JSON: %v", err)
	}
	return l.Items
}

// GetJob returns the Job as kubectl reads it.
func GetJob(t testing.TB, ns, name string) *batchv1.Job {
	t.Helper()
	return DecodeJob(t, JobJSON(t, ns, name))
}

// GetPods returns the Job's pods as kubectl reads them.
func GetPods(t testing.TB, ns, jobName string) []corev1.Pod {
	t.Helper()
	return DecodePods(t, PodsJSON(t, ns, jobName))
}

// Snapshot is a consistent view of a Job and its pods: the Job did not change while the pods
// were read.
type Snapshot struct {
	JobJSON  []byte
	PodsJSON []byte
	Job      *batchv1.Job
	Pods     []corev1.Pod
}

// TakeSnapshot reads the Job, its pods and the Job again with kubectl, retrying until the Job's
// resourceVersion is the same before and after the pods were read.
func TakeSnapshot(t testing.TB, ns, name string) Snapshot {
	t.Helper()
	for i := 0; ; i++ {
		j1 := JobJSON(t, ns, name)
		pods := PodsJSON(t, ns, name)
		j2 := JobJSON(t, ns, name)
		a, b := DecodeJob(t, j1), DecodeJob(t, j2)
		if a.ResourceVersion == b.ResourceVersion || i == 20 {
			return Snapshot{JobJSON: j2, PodsJSON: pods, Job: b, Pods: DecodePods(t, pods)}
		}
	}
}

// WaitForJob polls the Job and its pods (through the API, every 250ms) until done returns true,
// and returns that state. It fails the test after timeout, or at once if a control-plane
// component died, showing the last state seen.
func WaitForJob(t testing.TB, ns, name string, timeout time.Duration, what string, done func(*batchv1.Job, []corev1.Pod) bool) (*batchv1.Job, []corev1.Pod) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var job *batchv1.Job
	var pods []corev1.Pod
	var lastErr error
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if env.Cluster != nil {
			if err := env.Cluster.Healthy(); err != nil {
				return false, err
			}
		}
		j, err := env.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			lastErr = err
			return false, nil
		}
		pl, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + name})
		if err != nil {
			lastErr = err
			return false, nil
		}
		job, pods = j, pl.Items
		return done(j, pl.Items), nil
	})
	if err != nil {
		t.Fatalf("job %s/%s: waiting %s for %s: %v (last error: %v)\nlast state: %s", ns, name, timeout, what, err, lastErr, DescribeState(job, pods))
	}
	return job, pods
}

// WaitForCondition waits until the Job has condition type ctype with status True.
func WaitForCondition(t testing.TB, ns, name string, ctype batchv1.JobConditionType, timeout time.Duration) *batchv1.Job {
	t.Helper()
	j, _ := WaitForJob(t, ns, name, timeout, "condition "+string(ctype), func(j *batchv1.Job, _ []corev1.Pod) bool {
		return Condition(j, ctype) != nil
	})
	return j
}

// WaitForFinished waits until the Job has Complete=True or Failed=True.
func WaitForFinished(t testing.TB, ns, name string, timeout time.Duration) *batchv1.Job {
	t.Helper()
	j, _ := WaitForJob(t, ns, name, timeout, "Complete or Failed", func(j *batchv1.Job, _ []corev1.Pod) bool {
		return Finished(j)
	})
	return j
}

// Condition returns the Job's condition of type ctype if its status is True, else nil.
func Condition(j *batchv1.Job, ctype batchv1.JobConditionType) *batchv1.JobCondition {
	if j == nil {
		return nil
	}
	for i := range j.Status.Conditions {
		c := &j.Status.Conditions[i]
		if c.Type == ctype && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// Finished reports whether the Job has Complete=True or Failed=True.
func Finished(j *batchv1.Job) bool {
	return Condition(j, batchv1.JobComplete) != nil || Condition(j, batchv1.JobFailed) != nil
}

// PodIndex returns the pod's completion index (annotation), or -1.
func PodIndex(p corev1.Pod) int {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return -1
	}
	return i
}

// PodAttempt returns failure-count + ignored-failure-count of the pod (0-based attempt), or -1
// when the pod has no failure-count annotation (Jobs without backoffLimitPerIndex).
func PodAttempt(p corev1.Pod) int {
	fc, ok := p.Annotations[batchv1.JobIndexFailureCountAnnotation]
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(fc)
	if err != nil {
		return -1
	}
	if ic, ok := p.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation]; ok {
		m, err := strconv.Atoi(ic)
		if err != nil {
			return -1
		}
		n += m
	}
	return n
}

// PodsByIndex groups pods by completion index, each group ordered by attempt then creation.
func PodsByIndex(pods []corev1.Pod) map[int][]corev1.Pod {
	m := map[int][]corev1.Pod{}
	for _, p := range pods {
		m[PodIndex(p)] = append(m[PodIndex(p)], p)
	}
	for _, ps := range m {
		sort.SliceStable(ps, func(a, b int) bool {
			if x, y := PodAttempt(ps[a]), PodAttempt(ps[b]); x != y {
				return x < y
			}
			return ps[a].CreationTimestamp.Before(&ps[b].CreationTimestamp)
		})
	}
	return m
}

// ExitCode returns the exit code of the pod's container name (terminated), or -1.
func ExitCode(p corev1.Pod, container string) int {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container && cs.State.Terminated != nil {
			return int(cs.State.Terminated.ExitCode)
		}
	}
	return -1
}

// PodCondition returns the pod's condition of type ctype (any status), or nil.
func PodCondition(p corev1.Pod, ctype corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == ctype {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// RestartCount returns the sum of the restart counts of the pod's containers.
func RestartCount(p corev1.Pod) int {
	n := 0
	for _, cs := range p.Status.ContainerStatuses {
		n += int(cs.RestartCount)
	}
	return n
}

// LastExitCode returns the exit code of container's previous run (lastState.terminated), or -1.
func LastExitCode(p corev1.Pod, container string) int {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container && cs.LastTerminationState.Terminated != nil {
			return int(cs.LastTerminationState.Terminated.ExitCode)
		}
	}
	return -1
}

// Terminating reports whether the pod is being deleted.
func Terminating(p corev1.Pod) bool { return p.DeletionTimestamp != nil }

// DescribeState renders a Job's status and its pods compactly for failure messages.
func DescribeState(j *batchv1.Job, pods []corev1.Pod) string {
	if j == nil {
		return "(job never read)"
	}
	var b strings.Builder
	st := j.Status
	fmt.Fprintf(&b, "active=%d ready=%s succeeded=%d failed=%d terminating=%s completedIndexes=%q failedIndexes=%s\n",
		st.Active, intPtr(st.Ready), st.Succeeded, st.Failed, intPtr(st.Terminating), st.CompletedIndexes, strPtr(st.FailedIndexes))
	for _, c := range st.Conditions {
		fmt.Fprintf(&b, "  condition %s=%s reason=%s message=%q\n", c.Type, c.Status, c.Reason, c.Message)
	}
	sorted := append([]corev1.Pod(nil), pods...)
	sort.Slice(sorted, func(a, b int) bool {
		if x, y := PodIndex(sorted[a]), PodIndex(sorted[b]); x != y {
			return x < y
		}
		return sorted[a].CreationTimestamp.Before(&sorted[b].CreationTimestamp)
	})
	for _, p := range sorted {
		var codes []string
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Terminated != nil {
				codes = append(codes, fmt.Sprintf("%s:%d", cs.Name, cs.State.Terminated.ExitCode))
			}
		}
		fmt.Fprintf(&b, "  pod %s index=%d attempt=%d phase=%s terminating=%v exit=%s restarts=%d finalizers=%v\n",
			p.Name, PodIndex(p), PodAttempt(p), p.Status.Phase, Terminating(p), strings.Join(codes, ","), RestartCount(p), p.Finalizers)
	}
	return b.String()
}

func intPtr(p *int32) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(int(*p))
}

func strPtr(p *string) string {
	if p == nil {
		return "nil"
	}
	return strconv.Quote(*p)
}

// GrantViewer gives the limited user "viewer" (env.ViewerKubeconfig) the rules in namespace
// ns, through a Role and a RoleBinding named name.
func GrantViewer(t testing.TB, ns, name string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx := context.Background()
	if _, err := env.Client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "viewer"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
