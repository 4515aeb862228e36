package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	domain "github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

const examples = "../../../examples"

type result struct {
	out, errOut string
	code        int
}

func run(t *testing.T, client *fake.Clientset, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	if client != nil {
		o.Client = client
	}
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	r := io.Run(NewCmdReconcileWithOptions(f, o), args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// runWorker runs examples/worker.sh for shard i of m as the Job's container would (the
// ConfigMap laid out as files) and returns its termination message.
func runWorker(t *testing.T, m *shards.Manifest, objs *scaffold.Objects, i int, results, attempt string) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	dir := t.TempDir()
	for k, v := range objs.ConfigMap.Data {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "INDEXED_TERMINATION_LOG=" + filepath.Join(dir, "termination-log"),
		"INDEXED_RESULTS_DIR=" + results, "INDEXED_ATTEMPT_ID=" + attempt, "INDEXED_JOB_NAME=" + objs.Job.Name}
	for _, e := range objs.Job.Spec.Template.Spec.Containers[0].Env {
		v := strings.ReplaceAll(e.Value, "$("+scaffold.EnvCompletionIndex+")", strconv.Itoa(i))
		if e.Name == scaffold.EnvCompletionIndex {
			v = strconv.Itoa(i)
		}
		env = append(env, e.Name+"="+strings.Replace(v, scaffold.MountPath, dir, 1))
	}
	cmd := exec.Command(sh, filepath.Join(examples, "worker.sh"))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("worker for index %d: %v\n%s", i, err, out)
	}
	msg, err := os.ReadFile(filepath.Join(dir, "termination-log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}

func exampleRun(t *testing.T) (*shards.Manifest, *scaffold.Objects) {
	t.Helper()
	m, err := shards.Read(filepath.Join(examples, "manifest.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: "demo", Namespace: "ns", Image: "busybox"})
	if err != nil {
		t.Fatal(err)
	}
	return m, objs
}

// TestOfflineWithTheExampleWorkersReceipts: the receipts examples/worker.sh writes reconcile
// complete; a receipt with a case taken out names that case and exits 1.
func TestOfflineWithTheExampleWorkersReceipts(t *testing.T) {
	m, objs := exampleRun(t)
	results := t.TempDir()
	for i := range m.Shards {
		msg := runWorker(t, m, objs, i, results, fmt.Sprintf("demo-%d-abcde", i))
		s, err := receipt.Decode("msg", msg)
		if err != nil || s.Completed != 10 || len(msg) > receipt.MaxTerminationMessage {
			t.Fatalf("index %d: summary %+v, %v\n%s", i, s, err, msg)
		}
	}
	manifest := filepath.Join(examples, "manifest.yaml")
	r := run(t, nil, "--manifest", manifest, "--receipts", results)
	if r.code != 0 || !strings.Contains(r.out, "40/40 (100%)") || !strings.Contains(r.out, "4/4 evaluated (4 complete)") {
		t.Fatalf("exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// Take the last case out of shard-2's receipt.
	file := filepath.Join(results, "shard-2", "demo-2-abcde.receipt.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	last := m.Shards[2].Cases[9]
	edited := strings.Replace(string(data), `,{"case":"`+last+`"}`, "", 1)
	if edited == string(data) {
		t.Fatalf("receipt does not list %s:\n%s", last, data)
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "json")
	var rep domain.Report
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	s := rep.Shards[2]
	if r.code != 1 || rep.Kind != "ReconcileReport" || rep.Complete || s.State != domain.StatePartial || len(s.MissingCases) != 1 || s.MissingCases[0].Case != last {
		t.Fatalf("exit %d, shard %+v", r.code, s)
	}
	// kubectl's templates over the same report: custom-columns a row per shard.
	if r := run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "custom-columns=INDEX:.index,STATE:.state,MISSING:.missing"); r.code != 1 ||
		!strings.HasPrefix(r.out, "INDEX   STATE") || !strings.Contains(r.out, "\n2       "+string(domain.StatePartial)) || strings.Count(r.out, "\n") != 1+len(m.Shards) {
		t.Errorf("custom-columns: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	if r := run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "jsonpath={.shards[2].missingCases[0].case}"); r.code != 1 || r.out != last {
		t.Errorf("jsonpath: exit %d, %q, want %q%s", r.code, r.out, last, r.errOut)
	}
	if r := run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "jsonpath={.shards["); r.code != exitcode.Usage || !strings.Contains(r.errOut, "-o jsonpath=") {
		t.Errorf("bad template: exit %d, %s", r.code, r.errOut)
	}
	if r := run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "yaml"); r.code != 1 || !strings.Contains(r.out, "kind: ReconcileReport\n") ||
		!strings.Contains(r.out, "case: "+last) {
		t.Fatalf("-o yaml: exit %d\n%s", r.code, r.out)
	}
	if r := run(t, nil, "--manifest", manifest, "--receipts", results, "--allow-partial"); r.code != 0 || !strings.Contains(r.out, "39/40 (97.5%)") {
		t.Fatalf("--allow-partial: exit %d\n%s", r.code, r.out)
	}
	// A truncated receipt file is named, not merged.
	if err := os.WriteFile(file, []byte(edited[:len(edited)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, nil, "--manifest", manifest, "--receipts", results)
	// The truncated file still names its shard: that shard is rejected, with the reason, not
	// missing (issue 22, item 2).
	if r.code != 1 || !strings.Contains(r.out, "- rejected, 1 shard: truncated: the JSON ends before") || !strings.Contains(r.out, "    shard shard-2\n") {
		t.Fatalf("exit %d\n%s", r.code, r.out)
	}
	if r := run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "wide"); r.code != 1 ||
		!strings.Contains(r.out, "2      shard-2  rejected") || !strings.Contains(r.out, "shard-2/demo-2-abcde.receipt.json shard shard-2: truncated") {
		t.Fatalf("-o wide: exit %d\n%s", r.code, r.out)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(examples, "manifest.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "give a Job name, or --manifest FILE and --receipts DIR"},
		{[]string{"--manifest", manifest}, "give a Job name"},
		{[]string{"--manifest", manifest, "--receipts", filepath.Join(dir, "nope")}, "cannot read the receipts directory"},
		{[]string{"--manifest", manifest, "--receipts", manifest}, "is not a directory"},
		{[]string{"--manifest", filepath.Join(dir, "nope.yaml"), "--receipts", dir}, "nope.yaml"},
		{[]string{"--manifest", manifest, "--receipts", dir, "-o", "table"}, "unable to match a printer suitable for the output format \"table\""},
		{[]string{"--manifest", manifest, "--receipts", dir, "--repetitions", "0"}, "--repetitions"},
		{[]string{"a", "b"}, "expected one Job name"},
	} {
		r := run(t, nil, tc.args...)
		if r.code != exitcode.Usage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", tc.args, r.code, tc.want, r.errOut)
		}
	}
}

func TestSeveralCandidatesNeedCandidate(t *testing.T) {
	m, objs := exampleRun(t)
	results := t.TempDir()
	runWorker(t, m, objs, 0, results, "a")
	runWorker(t, m, objs, 0, results, "b")
	file := filepath.Join(results, "shard-0", "b.receipt.json")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), `"attemptID"`, `"candidate":"model-b","attemptID"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(examples, "manifest.yaml")
	if r := run(t, nil, "--manifest", manifest, "--receipts", results); r.code != 2 || !strings.Contains(r.errOut, "give --candidate") {
		t.Fatalf("exit %d\n%s", r.code, r.errOut)
	}
	r := run(t, nil, "--manifest", manifest, "--receipts", results, "--candidate", "model-b")
	if r.code != 1 || !strings.Contains(r.out, "candidate-mismatch") {
		t.Fatalf("exit %d\n%s", r.code, r.out)
	}
}

// --- live ---

func finishedPod(j *batchv1.Job, index int, name string, phase corev1.PodPhase, exit int32, msg string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name),
			Labels:      map[string]string{batchv1.ControllerUidLabel: string(j.UID), batchv1.JobNameLabel: j.Name},
			Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index)}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "worker"}}},
		Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "worker",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: msg}}}}},
	}
}

// TestLiveFollowsRetries: root indexes 0, 1 succeed with summaries, 2 fails with an
// invalid-input summary, 3 fails with no summary; a retry (lineage keys as retry writes them)
// runs root index 3 as its index 0 and succeeds. 3/4 shards, shard-2 not evaluated, exit 1.
//
// The retry's index map is in its annotation, or in a ConfigMap of its own (as retry writes a
// map over 128 KiB); with that ConfigMap gone, the retry's pods are not used, and said so.
func TestLiveFollowsRetries(t *testing.T) {
	for _, place := range []string{"annotation", "configmap", "configmap gone"} {
		t.Run(place, func(t *testing.T) { testLiveFollowsRetries(t, place) })
	}
}

func testLiveFollowsRetries(t *testing.T, place string) {
	m, objs := exampleRun(t)
	root := objs.Job.DeepCopy()
	root.UID = "root-uid"
	results := t.TempDir()
	objects := []runtime.Object{objs.ConfigMap.DeepCopy(), root}
	for _, i := range []int{0, 1} {
		objects = append(objects, finishedPod(root, i, fmt.Sprintf("demo-%d-a", i), corev1.PodSucceeded, 0, runWorker(t, m, objs, i, results, fmt.Sprintf("demo-%d-a", i))))
	}
	bad := receipt.Summarize(&receipt.Receipt{Attempt: receipt.Attempt{Manifest: contract.ManifestRef{Name: "demo", Revision: "1", Hash: m.Hash()},
		ShardID: "shard-2", CompletionIndex: 2, Job: contract.JobRef{Name: "demo"}, AttemptID: "demo-2-a",
		Assigned: receipt.Assigned{Count: 10, Digest: receipt.CasesDigest(m.Shards[2].Cases)}}})
	bad.Failed.Infrastructure, bad.Reason = 10, "invalid input: unreadable record"
	badMsg, err := receipt.Encode(bad)
	if err != nil {
		t.Fatal(err)
	}
	objects = append(objects, finishedPod(root, 2, "demo-2-a", corev1.PodFailed, 42, string(badMsg)))
	objects = append(objects, finishedPod(root, 3, "demo-3-a", corev1.PodFailed, 1, ""), finishedPod(root, 3, "demo-3-b", corev1.PodFailed, 1, "panic: boom\n"))
	retry := objs.Job.DeepCopy()
	retry.Name, retry.UID = "demo-retry-1", "retry-uid"
	retry.Labels[shards.LabelRootJob] = root.Name
	retry.Annotations[shards.AnnotationRootJob] = root.Name
	retry.Annotations[shards.AnnotationRootJobUID] = string(root.UID)
	retry.Annotations[shards.AnnotationParentJob] = root.Name
	retry.Annotations[shards.AnnotationParentJobUID] = string(root.UID)
	retry.Annotations[shards.AnnotationRetryAttempt] = "1"
	retry.Annotations[shards.AnnotationOriginalIndexes] = "3"
	one := int32(1) // as retry makes it: one completion per index of its map
	retry.Spec.Completions = &one
	if place != "annotation" {
		im, err := lineage.NewIndexMap(root.Name, indexes.Of(3))
		if err != nil {
			t.Fatal(err)
		}
		delete(retry.Annotations, shards.AnnotationOriginalIndexes)
		retry.Annotations[shards.AnnotationOriginalIndexesFrom] = im.Ref.String()
		if place == "configmap" {
			objects = append(objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: im.Ref.ConfigMap, Namespace: "ns"}, Data: im.Data})
		}
	}
	// The retry's index 0 runs the root's index 3: its worker sees shard-3's files.
	objects = append(objects, retry, finishedPod(retry, 0, "demo-retry-1-0-a", corev1.PodSucceeded, 0, runWorker(t, m, objs, 3, results, "demo-retry-1-0-a")))
	// A stale retry of a Job of the same name deleted earlier is ignored.
	stale := retry.DeepCopy()
	stale.Name, stale.UID = "demo-retry-old", "stale-uid"
	stale.Annotations[shards.AnnotationRootJobUID] = "old-root-uid"
	objects = append(objects, stale)
	// A pod still running: noted, not counted.
	runningPod := finishedPod(root, 1, "demo-1-b", corev1.PodRunning, 0, "")
	runningPod.Status.ContainerStatuses[0].State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	objects = append(objects, runningPod)
	client := fake.NewClientset(objects...)

	r := run(t, client, "demo", "-o", "json")
	var rep domain.Report
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s%s", err, r.out, r.errOut)
	}
	if place == "configmap gone" {
		if rep.Coverage.ShardsEvaluated != 2 || !strings.Contains(strings.Join(rep.Notes, "\n"), `Retry "demo-retry-1": its index map cannot be read (job "demo-retry-1" keeps its index map in ConfigMap`) {
			t.Errorf("coverage %+v notes %q", rep.Coverage, rep.Notes)
		}
		return
	}
	if r.code != 1 || rep.Coverage.ShardsEvaluated != 3 || rep.Coverage.Shards != 4 || rep.Coverage.Evaluated != 30 || rep.Coverage.Results != 40 {
		t.Fatalf("exit %d coverage %+v\n%s", r.code, rep.Coverage, r.out)
	}
	if s := rep.Shards[2]; s.State != domain.StateNotEvaluated || s.Reasons[0].Reason != "invalid input: unreadable record" {
		t.Errorf("shard-2 %+v", s)
	}
	if s := rep.Shards[3]; s.State != domain.StateComplete || s.Attempts[0].Source != "pod/demo-retry-1-0-a" {
		t.Errorf("shard-3 %+v", s)
	}
	if len(rep.Jobs) != 2 || rep.Jobs[1].Name != "demo-retry-1" || rep.Jobs[1].OriginalIndexes.String() != "3" {
		t.Errorf("jobs %+v", rep.Jobs)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "2 finished pods left no receipt summary") || !strings.Contains(notes, `"demo-retry-old"`) ||
		!strings.Contains(notes, "1 pod not finished yet: their shards' results are not in: demo-1-b.") {
		t.Errorf("notes:\n%s", notes)
	}
	// Given a retry, reconcile follows its root.
	if r := run(t, client, "demo-retry-1"); r.code != 1 || !strings.Contains(r.out, "is retry 1 of") {
		t.Errorf("from the retry: exit %d\n%s", r.code, r.out)
	}
	// Full receipts on disk win over summaries and name cases.
	if r := run(t, client, "demo", "--receipts", results); r.code != 1 || !strings.Contains(r.out, "1 shard is not complete (3 complete;") {
		t.Errorf("with receipts: exit %d\n%s", r.code, r.out)
	}
}

func TestLiveErrors(t *testing.T) {
	_, objs := exampleRun(t)
	if r := run(t, fake.NewClientset(), "demo"); r.code != exitcode.Cluster || !strings.Contains(r.errOut, `job "demo" not found`) {
		t.Errorf("no job: exit %d %s", r.code, r.errOut)
	}
	plain := objs.Job.DeepCopy()
	delete(plain.Annotations, shards.AnnotationShardsConfigMap)
	if r := run(t, fake.NewClientset(plain), "demo"); r.code != exitcode.Usage || !strings.Contains(r.errOut, "give --manifest FILE") {
		t.Errorf("no configmap annotation: exit %d %s", r.code, r.errOut)
	}
	if r := run(t, fake.NewClientset(objs.Job.DeepCopy()), "demo"); r.code != exitcode.Cluster || !strings.Contains(r.errOut, "configmap") {
		t.Errorf("no configmap: exit %d %s", r.code, r.errOut)
	}
}

func TestHelpDocumentsExitCodes(t *testing.T) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	f := cmdtesting.NewTestFactory()
	defer f.Cleanup()
	cmd := NewCmdReconcile(f, streams)
	cmd.SetOut(out)
	if err := cmd.Help(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Exit codes: 0", "1 coverage is incomplete", "2 usage error", "4 the API server", "--allow-partial"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestExampleWorkerInvalidInputLeavesAReceipt: on invalid input the example worker still exits
// 42 and leaves a summary and a receipt whose cases not done failed for infrastructure.
func TestExampleWorkerInvalidInputLeavesAReceipt(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	if err := os.WriteFile(cases, []byte("ok-1\nnot \"ok\" \\x\nok-3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tlog, results := filepath.Join(dir, "tlog"), filepath.Join(dir, "results")
	id := filepath.Join(dir, "id")
	if err := os.WriteFile(id, []byte("shard-7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, filepath.Join(examples, "worker.sh"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "INDEXED_SHARD_FILE=" + cases, "INDEXED_TERMINATION_LOG=" + tlog,
		"INDEXED_RESULTS_DIR=" + results, "INDEXED_ATTEMPT_ID=p", "INDEXED_SHARD_ID_FILE=" + id, "INDEXED_MANIFEST_NAME=demo", "INDEXED_MANIFEST_REVISION=1"}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 42 {
		t.Fatalf("want exit 42, got %v\n%s", err, out)
	}
	msg, err := os.ReadFile(tlog)
	if err != nil {
		t.Fatal(err)
	}
	s, err := receipt.Decode("tlog", string(msg))
	if err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	if s.Assigned.Count != 3 || s.Completed != 1 || s.Failed.Infrastructure != 2 || !strings.Contains(s.Reason, `invalid input: case ID 'not "ok" \x'`) {
		t.Errorf("summary %+v", s)
	}
	data, err := os.ReadFile(filepath.Join(results, "shard-7", "p.receipt.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := receipt.Parse("p.receipt.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(r.Completed) != 1 || len(r.Failed) != 2 || r.Failed[0].Case != `not "ok" \x` || r.Failed[0].Reason != s.Reason || r.Failed[1].Case != "ok-3" || r.Failed[0].Class != receipt.ClassInfrastructure {
		t.Errorf("receipt %s", data)
	}
}

// TestLiveTruncatedMessage: a summary longer than 4 KiB loses its beginning in the kubelet (which
// keeps the last 4,096 bytes); reconcile names it as truncated and does not count the shard.
func TestLiveTruncatedMessage(t *testing.T) {
	m, objs := exampleRun(t)
	root := objs.Job.DeepCopy()
	root.UID = "root-uid"
	s := receipt.Summarize(&receipt.Receipt{Attempt: receipt.Attempt{Manifest: contract.ManifestRef{Name: "demo", Revision: "1", Hash: m.Hash()},
		ShardID: "shard-0", Job: contract.JobRef{Name: "demo"}, AttemptID: "demo-0-a",
		Assigned: receipt.Assigned{Count: 10, Digest: receipt.CasesDigest(m.Shards[0].Cases)}}})
	s.Completed = 10
	s.Outputs = []string{"s3://bucket/" + strings.Repeat("very-long-prefix/", 300)}
	long, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	kept := string(long[len(long)-receipt.MaxTerminationMessage:])
	client := fake.NewClientset(objs.ConfigMap.DeepCopy(), root, finishedPod(root, 0, "demo-0-a", corev1.PodSucceeded, 0, kept))
	rep, r := func() (*domain.Report, result) {
		r := run(t, client, "demo", "-o", "json")
		var rep domain.Report
		if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
			t.Fatalf("%v\n%s%s", err, r.out, r.errOut)
		}
		return &rep, r
	}()
	if r.code != 1 || len(rep.Rejected) != 1 || rep.Rejected[0].Reason != domain.RejectTruncated || rep.Rejected[0].Source != "pod/demo-0-a" ||
		rep.Rejected[0].ShardID != "shard-0" || rep.Shards[0].State != domain.StateRejected || rep.Coverage.Evaluated != 0 {
		t.Fatalf("exit %d, rejected %+v, shard %+v", r.code, rep.Rejected, rep.Shards[0])
	}
}

// TestRepetitionsBound: a --repetitions above the bound is a usage error naming the flag and
// the bound, before anything is read. It used to be accepted: 9223372036854775807 with an
// empty receipts directory printed "Coverage: 0/-40" (exit 1), 4611686018427387904 "0/0", and
// with a receipt the process died of an out-of-memory fatal error or a makeslice panic.
func TestRepetitionsBound(t *testing.T) {
	manifest := filepath.Join(examples, "manifest.yaml")
	empty := t.TempDir()
	for _, reps := range []string{"10001", "1000000000", "4611686018427387904", "9223372036854775807"} {
		r := run(t, nil, "--manifest", manifest, "--receipts", empty, "--repetitions", reps)
		if r.code != exitcode.Usage || !strings.Contains(r.errOut, "--repetitions "+reps+": at most 10000") || r.out != "" {
			t.Errorf("--repetitions %s: exit %d, want 2 naming the bound\nstdout: %s\nstderr: %s", reps, r.code, r.out, r.errOut)
		}
	}
	// The bound itself works: 40 cases × 10000 results, counted exactly.
	r := run(t, nil, "--manifest", manifest, "--receipts", empty, "--repetitions", "10000", "-o", "json")
	var rep domain.Report
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.errOut)
	}
	if r.code != exitcode.Findings || rep.Coverage.Results != 400000 || rep.Coverage.Missing != 400000 || rep.Repetitions != 10000 {
		t.Errorf("exit %d, coverage %+v", r.code, rep.Coverage)
	}
}

// TestRepetitionsTimesCasesBound: within the flag's bound, cases × repetitions above
// domain.MaxResults is a usage error naming --repetitions.
func TestRepetitionsTimesCasesBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata:\n  name: big\nrevision: \"1\"\nshards:\n- id: s0\n  cases:\n")
	for k := range domain.MaxResults/domain.MaxRepetitions + 1 {
		fmt.Fprintf(&b, "  - c%05d\n", k)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, nil, "--manifest", path, "--receipts", t.TempDir(), "--repetitions", "10000")
	if r.code != exitcode.Usage || !strings.Contains(r.errOut, "--repetitions 10000: ") || !strings.Contains(r.errOut, "2001 cases × 10000 repetitions are 20010000 results, at most 20000000") {
		t.Errorf("exit %d\n%s", r.code, r.errOut)
	}
}

// TestRetriesOrderedByAttemptWithoutOverflow: retry-attempt annotations near the int range
// order as numbers (their difference used to wrap around and reverse the order).
func TestRetriesOrderedByAttemptWithoutOverflow(t *testing.T) {
	job := func(name, attempt string) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{shards.AnnotationRetryAttempt: attempt}}}
	}
	hi, lo := job("a", "9223372036854775807"), job("b", "-2")
	if c := byAttempt(hi, lo); c <= 0 {
		t.Errorf("attempt 9223372036854775807 vs -2: %d, want > 0", c)
	}
	if c := byAttempt(lo, hi); c >= 0 {
		t.Errorf("attempt -2 vs 9223372036854775807: %d, want < 0", c)
	}
	if c := byAttempt(job("a", "1"), job("b", "1")); c >= 0 {
		t.Errorf("same attempt: by name, got %d", c)
	}
}

// TestJobNameAsKubectlPrintsIt: JOB may be job/NAME or jobs.batch/NAME, as for status, logs
// and retry (pkg/cmd/jobref); a name that is not a Job's is a usage error (exit 2) and nothing
// is sent. reconcile used to send "job/demo" or "Foo" as the name and report the API server's
// refusal as exit 4.
func TestJobNameAsKubectlPrintsIt(t *testing.T) {
	_, objs := exampleRun(t)
	for _, name := range []string{"job/demo", "jobs.batch/demo", "job.batch/demo"} {
		client := fake.NewClientset(objs.Job.DeepCopy())
		// The Job is found by its name (its ConfigMap is missing, which is the next GET).
		r := run(t, client, name)
		if r.code != exitcode.Cluster || !strings.Contains(r.errOut, "configmap") {
			t.Errorf("%s: exit %d %s", name, r.code, r.errOut)
		}
		if acts := client.Actions(); len(acts) < 1 || acts[0].(interface{ GetName() string }).GetName() != "demo" {
			t.Errorf("%s: actions %v", name, acts)
		}
	}
	for name, msg := range map[string]string{
		"Foo":      `"Foo" is not a valid Job name`,
		"pod/demo": `"pod/demo" is not a Job`,
		"job/":     `"job/" names no Job`,
	} {
		client := fake.NewClientset(objs.Job.DeepCopy())
		r := run(t, client, name)
		if r.code != exitcode.Usage || !strings.Contains(r.errOut, msg) {
			t.Errorf("%s: exit %d (want 2), stderr %q (want %q)", name, r.code, r.errOut, msg)
		}
		if acts := client.Actions(); len(acts) != 0 {
			t.Errorf("%s: sent %v", name, acts)
		}
	}
}

// TestReceiptsThatAreNotFilesAreRejected: a *.receipt.json linked to /dev/zero grew reconcile
// to 6.4 GB in 15 s, and a FIFO blocked it forever (issue 26, item 7); both are now rejected
// at once as not regular files, and the rest of the directory is still read.
func TestReceiptsThatAreNotFilesAreRejected(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	results := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(results, "zero.receipt.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(results, "fifo.receipt.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() {
		done <- run(t, nil, "--manifest", filepath.Join(examples, "manifest.yaml"), "--receipts", results)
	}()
	select {
	case r := <-done:
		for _, want := range []string{"zero.receipt.json: malformed", "a character device, not a regular file", "fifo.receipt.json: malformed", "a FIFO (named pipe), not a regular file"} {
			if !strings.Contains(r.out, want) {
				t.Errorf("no %q in the report (exit %d):\n%s%s", want, r.code, r.out, r.errOut)
			}
		}
		if r.code != 1 {
			t.Errorf("exit %d, want 1", r.code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reconcile still reading after 20s")
	}
}

// TestLiveRootGoneCountsTheManifest: the root Job is gone (deleted by hand or by its TTL) and
// its retry, as retry makes it, ran root index 3 and succeeded. reconcile JOB-r1 reads the
// manifest from the copy in the retry's shard ConfigMap, counts its 4 shards, reports the 3
// that only the root ran as missing and exits 1, with a note that the root is gone (issue 26,
// item 4: it failed with exit 4, job "demo" not found). A copy that is not the manifest the
// retry ran (its hash differs) is refused, exit 2.
func TestLiveRootGoneCountsTheManifest(t *testing.T) {
	m, objs := exampleRun(t)
	root := objs.Job.DeepCopy()
	root.UID = "root-uid"
	l := &lineage.Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: root.Name, ParentJobUID: string(root.UID), Attempt: 1, Original: indexes.Of(3)}
	ro, err := scaffold.BuildRetry(scaffold.RetryOptions{Parent: root, ParentConfigMaps: objs.ConfigMaps(), Indexes: indexes.Of(3), Lineage: l, JobName: "demo-r1", Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	retry := ro.Job
	retry.UID = "retry-uid"
	results := t.TempDir()
	pod := finishedPod(retry, 0, "demo-r1-0-a", corev1.PodSucceeded, 0, runWorker(t, m, ro, 0, results, "demo-r1-0-a"))
	// The root's shard ConfigMap may stay behind or not: the retry's own copy is read.
	client := fake.NewClientset(ro.ConfigMap.DeepCopy(), retry, pod)

	r := run(t, client, "demo-r1", "-o", "json")
	var rep domain.Report
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", r.code, err, r.out, r.errOut)
	}
	if r.code != exitcode.Findings || rep.Complete || rep.Coverage.Shards != 4 || rep.Coverage.ShardsEvaluated != 1 || rep.Coverage.Results != 40 || rep.Coverage.Evaluated != 10 {
		t.Fatalf("exit %d, complete %v, coverage %+v", r.code, rep.Complete, rep.Coverage)
	}
	for i, s := range rep.Shards {
		want := domain.StateMissing
		if i == 3 {
			want = domain.StateComplete
		}
		if s.State != want || s.ShardID != m.Shards[i].ID {
			t.Errorf("shard %d: %s %s, want %s %s", i, s.ShardID, s.State, m.Shards[i].ID, want)
		}
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, `The root Job "demo" is gone (deleted by hand or by its TTL): the manifest, 4 shards, is read from the copy in shard ConfigMap "`+ro.ConfigMap.Name+`" of "demo-r1"`) {
		t.Errorf("notes:\n%s", notes)
	}
	if len(rep.Jobs) != 1 || rep.Jobs[0].Name != "demo-r1" || rep.Jobs[0].OriginalIndexes.String() != "3" {
		t.Errorf("jobs %+v", rep.Jobs)
	}
	// The text view says so too, and --allow-partial still states it.
	if r := run(t, client, "demo-r1", "--allow-partial"); r.code != 0 || !strings.Contains(strings.Join(strings.Fields(r.out), " "), `The root Job "demo" is gone`) {
		t.Errorf("text: exit %d\n%s%s", r.code, r.out, r.errOut)
	}

	// With the root there, it is read as before: its manifest, its pods.
	if r := run(t, fake.NewClientset(objs.ConfigMap.DeepCopy(), root, ro.ConfigMap.DeepCopy(), retry, pod), "demo-r1"); r.code != exitcode.Findings || strings.Contains(r.out, "is gone") || !strings.Contains(r.out, "is retry 1 of") {
		t.Errorf("root present: exit %d\n%s%s", r.code, r.out, r.errOut)
	}

	// A Job of the root's name made again (another UID) is not the root: as gone.
	other := root.DeepCopy()
	other.UID = "other-uid"
	if r := run(t, fake.NewClientset(objs.ConfigMap.DeepCopy(), other, ro.ConfigMap.DeepCopy(), retry, pod), "demo-r1"); r.code != exitcode.Findings ||
		!strings.Contains(strings.Join(strings.Fields(r.out), " "), `now has UID "other-uid"`) || !strings.Contains(r.out, "is gone") {
		t.Errorf("root made again: exit %d\n%s%s", r.code, r.out, r.errOut)
	}

	// The copy was replaced: another manifest than the one the retry ran.
	changed := ro.ConfigMap.DeepCopy()
	changed.Data[shards.KeyManifest] = strings.Replace(changed.Data[shards.KeyManifest], m.Shards[0].ID, "shard-x", 1)
	r = run(t, fake.NewClientset(changed, retry, pod), "demo-r1")
	if r.code != exitcode.Usage || !strings.Contains(r.errOut, "it was replaced or changed") || !strings.Contains(r.errOut, "give --manifest FILE") {
		t.Errorf("changed copy: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// No copy at all: say what to give.
	bare := ro.ConfigMap.DeepCopy()
	delete(bare.Data, shards.KeyManifest)
	r = run(t, fake.NewClientset(bare, retry, pod), "demo-r1")
	if r.code != exitcode.Usage || !strings.Contains(r.errOut, `the root Job "demo" of "demo-r1" is gone`) {
		t.Errorf("no copy: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// --manifest in its place: checked against the retry's hash, then used.
	if r := run(t, fake.NewClientset(bare, retry, pod), "demo-r1", "--manifest", filepath.Join(examples, "manifest.yaml")); r.code != exitcode.Findings || !strings.Contains(strings.Join(strings.Fields(r.out), " "), "is read from --manifest") {
		t.Errorf("--manifest: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// create's own store without the copy (a manifest too large to fit next to its shards is
	// not copied): it was written by create, and the error must not say otherwise.
	large := objs.ConfigMap.DeepCopy()
	delete(large.Data, shards.KeyManifest)
	r = run(t, fake.NewClientset(large, root, pod), "demo")
	if r.code != exitcode.Usage || strings.Contains(r.errOut, "not written by") || !strings.Contains(r.errOut, "too large") || !strings.Contains(r.errOut, "give --manifest FILE") {
		t.Errorf("large manifest: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
}
