//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// TestSeedWalkthrough runs the README's walkthrough of the seed scenario through kubectl, as a
// new user would type it: split examples/cases.txt into 6 shards, create the Job from
// examples/seed-worker.yaml (index 2 exits 42, index 4 exits 1 on both attempts), read
// `status`, then run the logs and retry commands that status's "Next" prints, taken from its
// output and not written here, so the walkthrough is proven to work from status alone.
//
// Expected facts, from the controller (pkg/controller/job): exit 42 matches create's FailIndex
// rule, so index 2 fails after 1 attempt (getPodFailurePolicyAction / FailIndex); index 4's
// exit 1 matches no rule and counts against backoffLimitPerIndex 1, so it fails after 2
// attempts (getNewIndexFailureCounts, isIndexFailed). The log line is kwok's, served to the
// API server from the harness's logs file (test/harness/kwok.go).
func TestSeedWalkthrough(t *testing.T) {
	RequirePlugin(t)
	ns := NewNamespace(t)
	dir := t.TempDir()

	// kubectl indexed shards split --cases examples/cases.txt --shards 6 --name seed --revision 1 > seed.yaml
	r := KubectlIndexed(t, "shards", "split", "--cases", filepath.Join(env.RepoRoot, "examples", "cases.txt"),
		"--shards", "6", "--name", "seed", "--revision", "1")
	if r.ExitCode != 0 {
		t.Fatalf("split:\n%s", r)
	}
	manifest := filepath.Join(dir, "seed.yaml")
	if err := os.WriteFile(manifest, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	// kubectl indexed create seed --manifest seed.yaml --from-job examples/seed-worker.yaml
	r = KubectlIndexed(t, "create", "seed", "-n", ns, "--manifest", manifest,
		"--from-job", filepath.Join(env.RepoRoot, "examples", "seed-worker.yaml"))
	if r.ExitCode != 0 || !strings.HasSuffix(r.Stdout, "job.batch/seed created\n") {
		t.Fatalf("create:\n%s", r)
	}
	// kubectl wait --for=condition=Failed job/seed --timeout=3m
	r = Run(t, Cmd{Args: []string{"wait", "-n", ns, "--for=condition=Failed", "job/seed", "--timeout=3m"}, Timeout: 4 * time.Minute})
	if r.ExitCode != 0 {
		t.Fatalf("wait:\n%s\n%s", r, DescribeState(GetJob(t, ns, "seed"), GetPods(t, ns, "seed")))
	}
	byIndex := PodsByIndex(GetPods(t, ns, "seed"))
	if len(byIndex[2]) != 1 || len(byIndex[4]) != 2 || ExitCode(byIndex[2][0], "worker") != 42 || ExitCode(byIndex[4][1], "worker") != 1 {
		t.Fatalf("seed did not run as the scenario says:\n%s", DescribeState(GetJob(t, ns, "seed"), GetPods(t, ns, "seed")))
	}

	// kubectl indexed status seed
	r = KubectlIndexed(t, "status", "seed", "-n", ns)
	t.Logf("%s", r)
	if r.ExitCode != 0 || !regexp.MustCompile(`(?m)^Failed +2 +2,4$`).MatchString(r.Stdout) {
		t.Fatalf("status: want exit 0 and indexes 2,4 failed:\n%s", r)
	}
	// Two retry commands: index 4, which used up its retries (the command without --indexes),
	// and index 2, failed by the Job's FailIndex rule, named deliberately with it.
	logsCmd, retryCmd := nextCommand(t, r.Stdout, "kubectl indexed logs "), nextCommand(t, r.Stdout, "kubectl indexed retry seed -n "+ns+"\n")
	if deliberate := nextCommand(t, r.Stdout, "kubectl indexed retry seed -n "+ns+" --indexes"); strings.Join(deliberate, " ") != "kubectl indexed retry seed -n "+ns+" --indexes 2,4" {
		t.Errorf("status's deliberate retry command %q", strings.Join(deliberate, " "))
	}
	if want := "kubectl indexed logs seed -n " + ns + " --failed"; strings.Join(logsCmd, " ") != want {
		t.Errorf("status's logs command %q, want %q", strings.Join(logsCmd, " "), want)
	}
	if want := "kubectl indexed retry seed -n " + ns; strings.Join(retryCmd, " ") != want {
		t.Errorf("status's retry command %q, want %q", strings.Join(retryCmd, " "), want)
	}

	// The logs command, as printed: the last failed attempt of each failed index, labelled.
	r = Kubectl(t, logsCmd[1:]...)
	t.Logf("%s", r)
	want := "[index 2 attempt 1] " + harness.ContainerLogLine + "\n[index 4 attempt 2] " + harness.ContainerLogLine + "\n"
	if r.ExitCode != 0 || r.Stdout != want {
		t.Errorf("logs: want exit 0 and\n%s\n%s", want, r)
	}

	// The retry command, as printed, with --dry-run=server: the API server accepts both objects
	// and stores nothing.
	r = Kubectl(t, append(retryCmd[1:], "--dry-run=server")...)
	t.Logf("%s", r)
	if r.ExitCode != 0 || !regexp.MustCompile(`^configmap/seed-retry-[0-9a-f]+ created \(server dry run\)\njob\.batch/seed-r1 created \(server dry run\)\n$`).MatchString(r.Stdout) ||
		!strings.Contains(r.Stderr, `retrying 1 index of job "seed" (4) as job "seed-r1"`) || !strings.Contains(r.Stderr, "FailIndex: exit code 42") {
		t.Errorf("retry --dry-run=server:\n%s", r)
	}
	if _, err := env.Client.BatchV1().Jobs(ns).Get(t.Context(), "seed-r1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a server dry run stored the Job: %v", err)
	}
}

// nextCommand returns the words of the one command in status's "Next" section that begins with
// prefix; it fails the test if there is not exactly one.
func nextCommand(t *testing.T, status, prefix string) []string {
	t.Helper()
	_, next, ok := strings.Cut(status, "\nNext:\n")
	if !ok {
		t.Fatalf("status has no Next section:\n%s", status)
	}
	var found []string
	for _, l := range strings.Split(next, "\n") {
		// A prefix ending in a newline matches the whole line.
		if l = strings.TrimSpace(l); strings.HasPrefix(l+"\n", prefix) {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("status's Next has %d commands starting %q, want 1:\n%s", len(found), prefix, next)
	}
	return strings.Fields(found[0])
}
