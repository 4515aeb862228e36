package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobdiff"
)

// The new user's diff (issue 36, item 9): the List create --dry-run=client -o yaml printed,
// its image edited by hand, against the live Job that has finished 2 of 4 shards. The plan
// ends in a command that runs as printed, from that file (it said to re-run "the command that
// printed" it, and create --from-job then refused the List: "holds 2 objects"); it warns that
// the new Job runs the finished shards again, on another image; and the command makes the same
// Job create makes from the manifest with the new image, under the new name.
func TestDiffPlanRunsAsPrinted(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join("..", "..", "examples", "manifest.yaml")
	createArgs := func(name, image string) []string {
		return []string{"create", name, "--manifest", manifest, "--image", image, "-n", "ml", "--dry-run=client", "-o", "yaml", "--", "python", "-m", "eval"}
	}
	printed, errOut, code := execute(t, createArgs("gsm-eval", "reg/eval:1.4")...)
	if code != 0 {
		t.Fatalf("create: exit %d\n%s", code, errOut)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := yaml.Unmarshal([]byte(printed), &list); err != nil || len(list.Items) != 2 {
		t.Fatalf("create printed %d items: %v", len(list.Items), err)
	}
	var live batchv1.Job
	if err := json.Unmarshal(list.Items[1], &live); err != nil || live.Kind != "Job" {
		t.Fatalf("second item: %v %s", err, live.Kind)
	}
	live.UID = "uid-live"
	live.CreationTimestamp = metav1.Date(2026, 1, 1, 0, 0, 0, 0, metav1.Now().Location())
	live.Status = batchv1.JobStatus{StartTime: &live.CreationTimestamp, Active: 2, CompletedIndexes: "0,2"}
	liveFile := filepath.Join(dir, "live.yaml")
	edited := filepath.Join(dir, "gsm-eval-changed.yaml")
	b, err := yaml.Marshal(&live)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(liveFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, []byte(strings.ReplaceAll(printed, "reg/eval:1.4", "reg/eval:1.5")), 0o644); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := execute(t, "diff", "gsm-eval", "--live-file", liveFile, "-f", edited, "-n", "ml", "-o", "json")
	if code != 1 {
		t.Fatalf("diff: exit %d\n%s%s", code, out, errOut)
	}
	var report jobdiff.Report
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, w := range report.Warnings {
		codes[w.Code] = w.Message
	}
	if !strings.Contains(codes[jobdiff.WarnNewJobRerunsSucceeded], "2 of which already succeeded") || !strings.Contains(codes[jobdiff.WarnNewJobChangesImage], "reg/eval:1.5") {
		t.Errorf("warnings %v", codes)
	}
	if len(report.Plan) == 0 {
		t.Fatal("no plan")
	}
	last := report.Plan[len(report.Plan)-1]
	if last.Kind != jobdiff.StepNewJob || len(last.Commands) == 0 || strings.Contains(last.Description, "re-run") {
		t.Fatalf("plan %+v", report.Plan)
	}
	cmd := last.Commands[len(last.Commands)-1]
	words := shWords(t, cmd)
	if strings.Join(words[:3], " ") != "kubectl indexed create" {
		t.Fatalf("the plan's last command %q", cmd)
	}
	// Run it as printed (dry-run, to see what it would create).
	got, errOut, code := execute(t, append(words[2:], "--dry-run=client", "-o", "yaml")...)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", cmd, code, errOut)
	}
	if !strings.Contains(errOut, "as create prints them") || !strings.Contains(errOut, "no --manifest") {
		t.Errorf("create does not say what it took from the file:\n%s", errOut)
	}
	name := words[3]
	want, _, code := execute(t, createArgs(name, "reg/eval:1.5")...)
	if code != 0 || got != want {
		t.Errorf("%s made other objects than create with the new image:\n%s\nwant\n%s", cmd, got, want)
	}
}
