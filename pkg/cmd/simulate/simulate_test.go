package simulate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

const jobYAML = `apiVersion: batch/v1
kind: Job
metadata:
  name: shards
spec:
  completionMode: Indexed
  completions: 4
  parallelism: 4
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: w:1
`

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	io := cmdtest.NewIO("")
	r := io.Run(NewCmdSimulate(io.Streams()), args...)
	return r.Stdout, r.Err
}

func TestReadJobShapes(t *testing.T) {
	list := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: shards\n  data: {a: b}\n- " +
		strings.ReplaceAll(strings.TrimSuffix(jobYAML, "\n"), "\n", "\n  ") + "\n"
	cron := `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      completionMode: Indexed
      completions: 2
      template:
        spec:
          restartPolicy: Never
          containers: [{name: worker, image: w:1}]
`
	for name, content := range map[string]string{"job.yaml": jobYAML, "list.yaml": list, "cron.yaml": cron} {
		j, _, err := simulate.ReadJob(testutil.WriteFile(t, name, content), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if j.Spec.Completions == nil {
			t.Fatalf("%s: no completions", name)
		}
		if name == "cron.yaml" && j.Name != "nightly" {
			t.Errorf("cron Job name %q", j.Name)
		}
	}
	if _, _, err := simulate.ReadJob(testutil.WriteFile(t, "two.yaml", jobYAML+"---\n"+jobYAML), nil); err == nil || !strings.Contains(err.Error(), "2 Jobs") {
		t.Errorf("two Jobs: %v", err)
	}
	if _, _, err := simulate.ReadJob(testutil.WriteFile(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), nil); err == nil {
		t.Error("no Job accepted")
	}
}

func TestUsageErrors(t *testing.T) {
	file := testutil.WriteFile(t, "job.yaml", jobYAML)
	for _, args := range [][]string{
		{},
		{file, "--outcome", "x=1"},
		{file, "--duration", "1=soon"},
		{file, "--default-outcome", "300"},
		{file, "-o", "table"},
		{filepath.Join(t.TempDir(), "missing.yaml")},
		{testutil.WriteFile(t, "nonindexed.yaml", strings.Replace(jobYAML, "  completionMode: Indexed\n", "", 1))},
	} {
		if _, err := runCmd(t, args...); exitcode.Code(err) != exitcode.Usage {
			t.Errorf("%v: exit code %d (%v), want %d", args, exitcode.Code(err), err, exitcode.Usage)
		}
	}
}

// backoffLimit 1 shared by 4 indexes: index 1 failing twice fails the Job; with
// backoffLimitPerIndex 1 instead only index 1 fails.
func TestCompareAndJSON(t *testing.T) {
	a := testutil.WriteFile(t, "a.yaml", jobYAML)
	b := testutil.WriteFile(t, "b.yaml", strings.Replace(jobYAML, "  backoffLimit: 1\n", "  backoffLimitPerIndex: 1\n", 1))
	out, err := runCmd(t, a, "--outcome", "1=1", "--default-duration", "5s", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rep simulate.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kind != simulate.KindReport || rep.Outcome != "Failed" || rep.Status.Failed != 2 || rep.Status.CompletedIndexes != "0,2,3" {
		t.Fatalf("report %s %s failed %d", rep.Kind, rep.Outcome, rep.Status.Failed)
	}
	out, err = runCmd(t, a, "--compare", b, "--outcome", "1=1", "--default-duration", "5s")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Failed (BackoffLimitExceeded)", "Failed (FailedIndexes)", "0,2,3"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	text, err := runCmd(t, b, "--outcome", "1=1")
	if err != nil || !strings.Contains(text, "failedIndexes: 1") || !strings.Contains(text, "Timeline:") {
		t.Errorf("text output (%v):\n%s", err, text)
	}
}

// failedIndexes absent (no backoffLimitPerIndex: not tracked) and failedIndexes empty (tracked,
// none failed) say so in words, in the same table and in the one-Job view; before, one was "-"
// and the other `""`, side by side.
func TestIndexSetWords(t *testing.T) {
	a := testutil.WriteFile(t, "a.yaml", jobYAML)
	b := testutil.WriteFile(t, "b.yaml", strings.Replace(jobYAML, "  backoffLimit: 1\n", "  backoffLimitPerIndex: 1\n", 1))
	out, err := runCmd(t, a, "--compare", b, "--default-duration", "5s")
	if err != nil {
		t.Fatal(err)
	}
	var row []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "failedIndexes" {
			row = f
		}
	}
	if strings.Join(row, " ") != "failedIndexes not tracked none" {
		t.Errorf("failedIndexes row %q:\n%s", row, out)
	}
	for file, want := range map[string]string{a: "failedIndexes: not tracked", b: "failedIndexes: none"} {
		if out, err := runCmd(t, file, "--default-duration", "5s"); err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: no %q (%v):\n%s", file, want, err, out)
		}
	}
	if out, err := runCmd(t, b, "--outcome", "0-3=1"); err != nil || !strings.Contains(out, "completedIndexes: none") {
		t.Errorf("no completed index (%v):\n%s", err, out)
	}
}

// TestOutputTemplates: kubectl's template formats over the SimulationReport (custom-columns a
// row per event) and, with --compare, over the comparison (a row per report).
func TestOutputTemplates(t *testing.T) {
	job := testutil.WriteFile(t, "job.yaml", jobYAML)
	out, err := runCmd(t, job, "-o", "jsonpath={.outcome}")
	if err != nil || out == "" || strings.ContainsAny(out, "{}\n") {
		t.Errorf("jsonpath: %q, %v", out, err)
	}
	full, err := runCmd(t, job, "-o", "json")
	if err != nil || !strings.Contains(full, `"outcome": "`+out+`"`) {
		t.Errorf("jsonpath %q is not the JSON report's outcome:\n%s", out, full)
	}
	var rep struct {
		Events []struct {
			Type string `json:"type"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(full), &rep); err != nil || len(rep.Events) == 0 {
		t.Fatalf("%v: %s", err, full)
	}
	out, err = runCmd(t, job, "-o", "custom-columns=TYPE:.type")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || lines[0] != "TYPE" || len(lines) != 1+len(rep.Events) || strings.TrimSpace(lines[1]) != rep.Events[0].Type {
		t.Errorf("custom-columns: %d rows for %d events: %q, %v", len(lines)-1, len(rep.Events), out, err)
	}
	out, err = runCmd(t, job, "--compare", job, "-o", "custom-columns=JOB:.job,OUTCOME:.outcome")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); err != nil || len(lines) != 3 || !strings.HasPrefix(lines[0], "JOB") {
		t.Errorf("--compare custom-columns: %q, %v", out, err)
	}
	if _, err := runCmd(t, job, "-o", "jsonpath={.events["); err == nil || !strings.Contains(err.Error(), "-o jsonpath=") {
		t.Errorf("bad template: %v", err)
	}
}

// TestTextCutsIndexLists: the text view cuts long index lists (as status does); -o wide keeps
// them whole. 10,000 indexes where every 100th fails once under backoffLimitPerIndex 1: 100
// indexes end with 2 pods, the other 9,900 with 1, in 100 intervals each.
func TestTextCutsIndexLists(t *testing.T) {
	job := strings.Replace(strings.Replace(strings.Replace(jobYAML, "completions: 4", "completions: 10000", 1),
		"parallelism: 4", "parallelism: 10000", 1), "backoffLimit: 1", "backoffLimitPerIndex: 1", 1)
	path := testutil.WriteFile(t, "big.yaml", job)
	var flags []string
	for i := 0; i < 10000; i += 100 {
		flags = append(flags, "--outcome", strconv.Itoa(i)+"=1,0")
	}
	line := func(out, prefix string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), prefix) {
				return l
			}
		}
		t.Fatalf("no %q line in:\n%s", prefix, out)
		return ""
	}
	out, err := runCmd(t, append([]string{path}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	// The default view wraps at 80 columns: read the line with its continuations.
	folded := strings.Join(strings.Fields(out), " ")
	_, pods, _ := strings.Cut(folded, "pods per index at the end:")
	pods, _, _ = strings.Cut(pods, "created)")
	pods += "created)"
	if len(pods) > 250 || !strings.Contains(pods, "(and 9") || !strings.Contains(pods, "(10100 created)") {
		t.Errorf("text: the pods line is not cut (%d bytes): %s", len(pods), pods)
	}
	wide, err := runCmd(t, append([]string{path, "-o", "wide"}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	pods = line(wide, "pods per index at the end:")
	if !strings.Contains(pods, "9901-9999:1") || !strings.Contains(pods, "9800,9900:2") || strings.Contains(pods, "more)") {
		t.Errorf("-o wide: the pods line is not whole: %.300s...", pods)
	}
	// Every 100th index failing twice: failedIndexes holds 100 scattered indexes, cut the same.
	for i := range flags {
		flags[i] = strings.Replace(flags[i], "=1,0", "=1,1", 1)
	}
	out, _ = runCmd(t, append([]string{path}, flags...)...)
	_, failed, _ := strings.Cut(strings.Join(strings.Fields(out), " "), "failedIndexes: ")
	if failed, _, _ = strings.Cut(failed, " succeeded:"); !strings.HasPrefix(failed, "0,100,200,") || !strings.HasSuffix(failed, "more)") {
		t.Errorf("text: failedIndexes is not cut: %s", failed)
	}
	wide, _ = runCmd(t, append([]string{path, "-o", "wide"}, flags...)...)
	if failed = line(wide, "completedIndexes:"); !strings.Contains(failed, ",9800,9900 ") || strings.Contains(failed, "more)") {
		t.Errorf("-o wide: failedIndexes is not whole: %.300s...", failed)
	}
}

// A Job above MaxCompletions is refused before anything is simulated: exit 2, the limit named.
func TestSimulateRefusesTooManyCompletions(t *testing.T) {
	big := strings.Replace(jobYAML, "completions: 4", "completions: "+strconv.Itoa(MaxCompletions+1), 1)
	path := testutil.WriteFile(t, "big.yaml", big)
	_, err := runCmd(t, path, "-o", "json")
	if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), "250000") || !strings.Contains(err.Error(), "250001") {
		t.Fatalf("got %v (exit %d), want a usage error naming 250001 and the limit 250000", err, exitcode.Code(err))
	}
}

// SIGINT / SIGTERM: main cancels the command's context with exitcode.Interrupt; the simulation
// stops and the command exits 128 + the signal, saying it was simulating (not waiting for
// input). A plain cancel exits 130.
func TestSimulateInterrupted(t *testing.T) {
	seq := strings.Replace(strings.Replace(jobYAML, "completions: 4", "completions: 5000", 1), "parallelism: 4", "parallelism: 1", 1)
	path := testutil.WriteFile(t, "seq.yaml", seq)
	for _, tc := range []struct {
		cause error
		code  int
		head  string
	}{
		{&exitcode.Interrupt{Signal: syscall.SIGTERM}, 143, "interrupted (terminated) while simulating "},
		{&exitcode.Interrupt{Signal: os.Interrupt}, 130, "interrupted (interrupt) while simulating "},
		{nil, 130, "interrupted while simulating "},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(tc.cause)
		io := cmdtest.NewIO("")
		o := NewOptions(io.Streams())
		if err := o.Complete(nil, []string{path}); err != nil {
			t.Fatal(err)
		}
		o.PrintFlags.OutputFormat = "json"
		err := o.Run(ctx)
		if exitcode.Code(err) != tc.code || !strings.HasPrefix(err.Error(), tc.head) || !strings.Contains(err.Error(), "stopped (simulation stopped at 0s of simulated time after 0 syncs)") {
			t.Fatalf("cause %v: got %q (exit %d), want exit %d and %q...", tc.cause, err, exitcode.Code(err), tc.code, tc.head)
		}
	}
}

// A later --outcome for the same index replaces an earlier one, as the help says: a range that
// succeeds, then one index that fails.
func TestLaterOutcomeReplaces(t *testing.T) {
	job := strings.Replace(jobYAML, "backoffLimit: 1", "backoffLimitPerIndex: 0", 1)
	path := testutil.WriteFile(t, "job.yaml", job)
	for args, want := range map[[4]string]string{
		{"--outcome", "0-3=0", "--outcome", "2=1"}: "2",
		{"--outcome", "2=1", "--outcome", "0-3=0"}: "",
	} {
		out, err := runCmd(t, path, args[0], args[1], args[2], args[3], "-o", "jsonpath={.status.failedIndexes}")
		if err != nil || out != want {
			t.Errorf("%v: failedIndexes %q (%v), want %q", args, out, err, want)
		}
	}
}

// TestTextFits80Columns: the default text view of every captured fixture's Job fits 80
// columns (issue 22, item 3: 97-301 before); -o wide does not wrap.
func TestTextFits80Columns(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "test", "fixtures", "*", "job.json"))
	if err != nil || len(files) < 10 {
		t.Fatalf("fixtures: %v %d", err, len(files))
	}
	for _, f := range files {
		out, err := runCmd(t, f, "--outcome", "1=1")
		if err != nil {
			continue // a Job simulate refuses (not Indexed) is not a text view
		}
		for _, l := range strings.Split(out, "\n") {
			if n := len([]rune(l)); n > 80 {
				t.Errorf("%s: a line of %d columns: %q", f, n, l)
			}
		}
	}
}

// The timeline's default view groups the events of one instant and one cause (issue 22: 1,000
// indexes gave a line per pod event); -o wide and -o json keep one event per index.
func TestTimelineGroupsOneInstantOneCause(t *testing.T) {
	job := strings.Replace(strings.Replace(strings.Replace(jobYAML, "completions: 4", "completions: 1000", 1),
		"parallelism: 4", "parallelism: 100", 1), "backoffLimit: 1", "backoffLimitPerIndex: 1", 1)
	path := testutil.WriteFile(t, "big.yaml", job)
	args := []string{path, "--outcome", "2,5,30-40=1", "--default-duration", "10s"}
	timeline := func(out string) []string {
		_, tl, _ := strings.Cut(out, "Timeline:\n")
		tl, _, _ = strings.Cut(tl, "\n\n")
		return strings.Split(tl, "\n")
	}
	out, err := runCmd(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(timeline(out), "\n")
	// Indexes 2, 5 and 30-40 each fail twice, 10 s apart: 13 pod events at t=10s are one line.
	for _, want := range []string{
		"t=10s     indexes 2,5,30-40 (13): pods failed (exit code 1)",
		"t=31s     indexes 2,5,30-40 (13) failed: backoffLimitPerIndex 1 used up",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("grouped timeline lacks %q:\n%s", want, text)
		}
	}
	if n := len(timeline(out)); n > 30 {
		t.Errorf("grouped timeline has %d lines:\n%s", n, text)
	}
	wide, err := runCmd(t, append(args, "-o", "wide")...)
	if err != nil {
		t.Fatal(err)
	}
	wtext := strings.Join(timeline(wide), "\n")
	for _, want := range []string{"index 30: pod ", "index 40 failed: backoffLimitPerIndex 1 used up"} {
		if !strings.Contains(wtext, want) {
			t.Errorf("-o wide timeline lacks %q", want)
		}
	}
	js, err := runCmd(t, append(args, "-o", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Events []struct{ Type, Message string }
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	podFailed := 0
	for _, e := range rep.Events {
		if e.Type == "PodFailed" {
			podFailed++
		}
	}
	if podFailed != 26 {
		t.Errorf("-o json: %d PodFailed events, want 26 (13 indexes, 2 attempts each)", podFailed)
	}
}

// A Job read back from a cluster (kubectl get job -o json, here a captured fixture) is
// simulated as the manifest that made it, as lint reads it: the server's selector and
// controller-uid labels made it "invalid" before (issue 22, item 6).
func TestSimulateLiveJob(t *testing.T) {
	f := filepath.Join("..", "..", "..", "test", "fixtures", "seed", "job.json")
	out, err := runCmd(t, f, "--outcome", "2=42", "--outcome", "4=1")
	if err != nil {
		t.Fatalf("simulate of a live Job: %v", err)
	}
	if !strings.Contains(out, "failedIndexes: 2,4") {
		t.Errorf("seed simulated:\n%s", out)
	}
}
