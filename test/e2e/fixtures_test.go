//go:build e2e

package e2e

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

var (
	captureFlag   = flag.Bool("capture", false, "TestCaptureFixtures: write test/fixtures/<scenario>/ (make fixtures)")
	scenariosFlag = flag.String("scenarios", "", "comma-separated scenario names to run (default: all)")
)

func selectedScenarios(t *testing.T) []Scenario {
	t.Helper()
	all := scenarios()
	for _, s := range all {
		if s.Ready == nil || s.Check == nil || s.Timeout == 0 {
			t.Fatalf("scenario %s has no Ready, Check or Timeout in scenarioRuns (scenarios_test.go)", s.Name)
		}
	}
	for name := range scenarioRuns() {
		if !defined(name) {
			t.Fatalf("scenarioRuns has %q, which definitions() does not define (definitions_test.go)", name)
		}
	}
	if *scenariosFlag == "" {
		return all
	}
	byName := map[string]Scenario{}
	for _, s := range all {
		byName[s.Name] = s
	}
	var out []Scenario
	for _, n := range strings.Split(*scenariosFlag, ",") {
		s, ok := byName[strings.TrimSpace(n)]
		if !ok {
			t.Fatalf("-scenarios: unknown scenario %q", n)
		}
		out = append(out, s)
	}
	return out
}

func defined(name string) bool {
	for _, d := range definitions() {
		if d.Name == name {
			return true
		}
	}
	return false
}

// runScenario creates the scenario's Job in ns, drives it, waits for the capture point and
// returns a consistent snapshot taken with kubectl.
func runScenario(t *testing.T, sc Scenario, ns string) Snapshot {
	t.Helper()
	began := time.Now()
	CreateJob(t, ns, sc.Manifest)
	if sc.Drive != nil {
		sc.Drive(t, ns)
	}
	WaitForJob(t, ns, sc.JobName, sc.Timeout, sc.CapturePoint, sc.Ready)
	// The capture point must still hold in the snapshot kubectl reads.
	for i := 0; ; i++ {
		s := TakeSnapshot(t, ns, sc.JobName)
		if sc.Ready(s.Job, s.Pods) {
			t.Logf("scenario %s reached %q in %s", sc.Name, sc.CapturePoint, time.Since(began).Round(100*time.Millisecond))
			return s
		}
		if i == 20 {
			t.Fatalf("capture point %q reached through the API but not in kubectl's view\n%s", sc.CapturePoint, DescribeState(s.Job, s.Pods))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestScenarios runs every scenario (the seed, prepare-db and per-index ones of issue 3 among
// them) on the real control plane and checks the real controller's result.
func TestScenarios(t *testing.T) {
	for _, sc := range selectedScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			ns := NewNamespace(t)
			s := runScenario(t, sc, ns)
			sc.Check(t, s)
			if t.Failed() {
				t.Logf("captured state:\n%s", DescribeState(s.Job, s.Pods))
			}
		})
	}
}

// TestCaptureFixtures runs the scenarios and, with -capture, writes test/fixtures/<scenario>/:
// job.json (kubectl get job -o json), pods.json (kubectl get pods -l job-name -o json) and
// scenario.yaml (the manifest, the capture point and the versions). A scenario whose checks
// fail writes nothing. Run it with `make fixtures`; never edit the output by hand.
func TestCaptureFixtures(t *testing.T) {
	if !*captureFlag {
		t.Skip("pass -capture to write test/fixtures (make fixtures)")
	}
	server, client := versions(t)
	if server != harness.KubernetesVersion {
		t.Fatalf("server is %s; fixtures are captured from %s only", server, harness.KubernetesVersion)
	}
	for _, sc := range selectedScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			ns := NamedNamespace(t, sc.Name)
			s := runScenario(t, sc, ns)
			sc.Check(t, s)
			if t.Failed() {
				t.Logf("not writing fixtures for %s; captured state:\n%s", sc.Name, DescribeState(s.Job, s.Pods))
				return
			}
			dir := filepath.Join(env.RepoRoot, "test", "fixtures", sc.Name)
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			meta := fixtureMeta{
				Scenario:          sc.Name,
				Description:       sc.Description,
				CapturePoint:      sc.CapturePoint,
				Namespace:         ns,
				JobName:           sc.JobName,
				KubernetesVersion: server,
				KubectlVersion:    client,
				EtcdVersion:       harness.EtcdVersion,
				KwokVersion:       harness.KwokVersion,
				CapturedAt:        time.Now().UTC().Format(time.RFC3339),
				Files: map[string]string{
					"job.json":  "kubectl get job " + sc.JobName + " -n " + ns + " -o json",
					"pods.json": "kubectl get pods -n " + ns + " -l batch.kubernetes.io/job-name=" + sc.JobName + " -o json",
				},
				Manifest: sc.Manifest,
			}
			y, err := yaml.Marshal(meta)
			if err != nil {
				t.Fatal(err)
			}
			header := "# Captured by TestCaptureFixtures (make fixtures) from a real control plane; do not edit.\n"
			for name, data := range map[string][]byte{"job.json": s.JobJSON, "pods.json": s.PodsJSON, "scenario.yaml": append([]byte(header), y...)} {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("wrote %s", dir)
		})
	}
}

// versions returns the server's and kubectl's gitVersion as `kubectl version -o json` reports them.
func versions(t *testing.T) (server, client string) {
	t.Helper()
	r := MustKubectl(t, "version", "-o", "json")
	var v struct {
		ClientVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"clientVersion"`
		ServerVersion struct {
			GitVersion string `json:"gitVersion"`
		} `json:"serverVersion"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("kubectl version -o json: %v\n%s", err, r.Stdout)
	}
	return v.ServerVersion.GitVersion, v.ClientVersion.GitVersion
}
