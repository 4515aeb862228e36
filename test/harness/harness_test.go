package harness

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// The version constants must match what test/cluster builds.
func TestVersionsMatchPinnedModules(t *testing.T) {
	for _, tc := range []struct{ file, module, want string }{
		{"../cluster/go.mod", "k8s.io/kubernetes", KubernetesVersion},
		{"../cluster/etcd/go.mod", "go.etcd.io/etcd/server/v3", EtcdVersion},
		{"../cluster/kwok/go.mod", "sigs.k8s.io/kwok", KwokVersion},
		{"../cluster/kueue/go.mod", "sigs.k8s.io/kueue", KueueVersion},
	} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(tc.module) + `\s+(v\S+)`)
		m := re.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s: no requirement on %s", tc.file, tc.module)
		}
		if got := string(m[1]); got != tc.want {
			t.Errorf("%s pins %s %s, harness constant says %s", tc.file, tc.module, got, tc.want)
		}
	}
}

// Every staging module of k8s.io/kubernetes must be replaced by its published v0.x.y version.
func TestClusterModuleReplacesStaging(t *testing.T) {
	data, err := os.ReadFile("../cluster/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	minor := strings.TrimPrefix(KubernetesVersion, "v1.")
	want := "v0." + minor
	re := regexp.MustCompile(`(?m)^\s*(k8s\.io/[a-z0-9-]+) => (k8s\.io/[a-z0-9-]+) (v\S+)$`)
	ms := re.FindAllSubmatch(data, -1)
	if len(ms) < 30 {
		t.Fatalf("only %d replace lines in test/cluster/go.mod", len(ms))
	}
	for _, m := range ms {
		if string(m[1]) != string(m[2]) || string(m[3]) != want {
			t.Errorf("replace %s => %s %s, want => %s %s", m[1], m[2], m[3], m[1], want)
		}
	}
}

func TestStagesParse(t *testing.T) {
	docs := bytes.Split(Stages(), []byte("\n---\n"))
	names := map[string]bool{}
	for _, d := range docs {
		var obj struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				ResourceRef struct {
					Kind string `json:"kind"`
				} `json:"resourceRef"`
				Next map[string]any `json:"next"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(d, &obj); err != nil {
			t.Fatalf("stages.yaml document does not parse: %v\n%s", err, d)
		}
		if obj.Kind == "" {
			continue // the leading comment block
		}
		if obj.APIVersion != "kwok.x-k8s.io/v1alpha1" || obj.Kind != "Stage" {
			t.Errorf("unexpected %s %s", obj.APIVersion, obj.Kind)
		}
		if names[obj.Metadata.Name] {
			t.Errorf("duplicate stage %q", obj.Metadata.Name)
		}
		names[obj.Metadata.Name] = true
		if len(obj.Spec.Next) == 0 {
			t.Errorf("stage %q has no next", obj.Metadata.Name)
		}
	}
	for _, want := range []string{"node-initialize", "scenario-pod-start", "scenario-pod-finish", "scenario-pod-terminate", "scenario-pod-delete"} {
		if !names[want] {
			t.Errorf("stage %q missing", want)
		}
	}
	// Every key the Go side validates is read by the stages, and vice versa.
	text := string(Stages())
	for base := range scenarioKeys {
		if !strings.Contains(text, base) {
			t.Errorf("stages.yaml never reads %s", base)
		}
	}
	for _, m := range regexp.MustCompile(`scenario\.indexed\.kubectl\.io/([a-z-]+)`).FindAllStringSubmatch(text, -1) {
		if _, ok := scenarioKeys[ScenarioPrefix+m[1]]; !ok {
			t.Errorf("stages.yaml reads %s%s, which ValidateScenarioAnnotations rejects", ScenarioPrefix, m[1])
		}
	}
}

func TestValidateScenarioAnnotations(t *testing.T) {
	ok := map[string]string{
		"other.example.com/x":                          "anything",
		AnnotationExitCode:                             "0",
		IndexKey(AnnotationExitCode, 2):                "42",
		AttemptKey(AnnotationExitCode, 4, 1):           "255",
		AnnotationRunTime:                              "1s",
		IndexKey(AnnotationRunTime, 3):                 "never",
		AttemptKey(AnnotationRunTime, 3, 0):            "1m30s",
		IndexKey(AnnotationCondition, 1):               "DisruptionTarget",
		AnnotationContainer:                            "worker",
		AnnotationTerminationDelay:                     "30s",
		IndexKey(AnnotationTerminationDelay, 7):        "0s",
		ScenarioPrefix + "condition.0.1":               "example.com/Custom",
		NewScenario().ExitCode(1).Annotations()[""]:    "",
		"unrelated-without-prefix":                     "x",
		"batch.kubernetes.io/job-completion-index":     "3",
		"scenario.indexed.kubectl.io.example/exitcode": "not ours",
	}
	delete(ok, "")
	if err := ValidateScenarioAnnotations(ok); err != nil {
		t.Fatalf("valid annotations rejected: %v", err)
	}
	for key, val := range map[string]string{
		AnnotationExitCode:                           "256",
		IndexKey(AnnotationExitCode, 1):              "-1",
		AttemptKey(AnnotationExitCode, 1, 0):         "x",
		ScenarioPrefix + "exit-code.01":              "1",
		ScenarioPrefix + "exit-code.1.2.3":           "1",
		ScenarioPrefix + "exit-code.a":               "1",
		AnnotationRunTime:                            "5",
		IndexKey(AnnotationRunTime, 1):               "-1s",
		ScenarioPrefix + "runtime":                   "1s",
		IndexKey(AnnotationCondition, 1):             "not a condition!",
		ScenarioPrefix + "container.1":               "worker",
		AnnotationContainer:                          "Worker_1",
		AttemptKey(AnnotationTerminationDelay, 1, 1): "1s",
	} {
		err := ValidateScenarioAnnotations(map[string]string{key: val})
		if err == nil {
			t.Errorf("%s=%q accepted", key, val)
			continue
		}
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error for %s does not name the key: %v", key, err)
		}
	}
	err := ValidateScenarioAnnotations(map[string]string{AnnotationRunTime: "5"})
	if err == nil || !strings.Contains(err.Error(), "5s") {
		t.Errorf("bare number: want a hint to write 5s, got %v", err)
	}
}

func TestScenarioBuilder(t *testing.T) {
	got := NewScenario().ExitCode(0).IndexExitCode(2, 42).AttemptExitCode(4, 1, 3).
		RunTime(2*time.Second).IndexRunsForever(5).IndexCondition(1, "DisruptionTarget").
		Container("worker").TerminationDelay(30 * time.Second).Annotations()
	want := map[string]string{
		ScenarioPrefix + "exit-code":         "0",
		ScenarioPrefix + "exit-code.2":       "42",
		ScenarioPrefix + "exit-code.4.1":     "3",
		ScenarioPrefix + "run-time":          "2s",
		ScenarioPrefix + "run-time.5":        "never",
		ScenarioPrefix + "condition.1":       "DisruptionTarget",
		ScenarioPrefix + "container":         "worker",
		ScenarioPrefix + "termination-delay": "30s",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if err := ValidateScenarioAnnotations(got); err != nil {
		t.Errorf("builder output invalid: %v", err)
	}
}

func TestPKI(t *testing.T) {
	p, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(p.CAData) {
		t.Fatal("CA data does not parse")
	}
	data, err := os.ReadFile(p.ServingCert)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("serving certificate is not PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("serving certificate does not verify for 127.0.0.1: %v", err)
	}
	tokens, err := os.ReadFile(p.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(tokens)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], ","+AdminUser+",") || !strings.HasSuffix(lines[0], `"system:masters"`) ||
		!strings.Contains(lines[1], ","+ViewerUser+",") || strings.Contains(lines[1], "system:masters") {
		t.Errorf("unexpected token file:\n%s", tokens)
	}
	if p.AdminToken == p.ViewerToken || len(p.AdminToken) < 32 {
		t.Errorf("weak or shared tokens")
	}
}

func TestTopEntryInside(t *testing.T) {
	for _, tc := range []struct{ dir, sub, want string }{
		{"/a/b", "/a/b/logs", "logs"},
		{"/a/b", "/a/b/logs/x", "logs"},
		{"/a/b", "/a/b", ""},
		{"/a/b", "/a/c", ""},
		{"/a/b", "/a/b2/logs", ""},
		{"/a/b", "/a/..b/logs", ""},
	} {
		if got := topEntryInside(tc.dir, tc.sub); got != tc.want {
			t.Errorf("topEntryInside(%q, %q) = %q, want %q", tc.dir, tc.sub, got, tc.want)
		}
	}
}

// stopGroup must kill the whole process group, grandchildren included.
func TestStopGroupKillsGrandchildren(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	sp := newSpawner()
	defer sp.close()
	// The shell ignores SIGTERM, so the SIGKILL escalation is exercised too.
	p, err := startProcess(sp, "sh", sh, []string{"-c", "trap '' TERM; sleep 300 & echo $! > " + pidFile + "; wait"},
		filepath.Join(dir, "sh.log"), false, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	var grandchild int
	for i := 0; i < 100 && grandchild == 0; i++ {
		if data, err := os.ReadFile(pidFile); err == nil && len(bytes.TrimSpace(data)) > 0 {
			grandchild, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if grandchild == 0 {
		t.Fatal("grandchild never started")
	}
	began := time.Now()
	p.stopGroup(500 * time.Millisecond)
	if exited, _ := p.exitedErr(); !exited {
		t.Fatal("leader still running")
	}
	for i := 0; i < 50 && syscall.Kill(grandchild, 0) == nil; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(grandchild, 0) == nil && !isZombie(grandchild) {
		t.Fatalf("grandchild %d survived stopGroup", grandchild)
	}
	if time.Since(began) > 5*time.Second {
		t.Errorf("stopGroup took %s", time.Since(began))
	}
}

// Down kills what a state file records and removes the directory's data, keeping logs.
func TestDownKillsRecordedProcesses(t *testing.T) {
	dir := t.TempDir()
	logDir := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Detached like `localcluster up`: own session, no parent-death signal.
	p, err := startProcess(nil, "sleep", "/bin/sleep", []string{"300"}, filepath.Join(logDir, "sleep.log"), true, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Dir: dir, LogDir: logDir, procs: []*process{p}}
	if err := c.writeState(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Down(dir, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		t.Fatal("recorded process still running after Down")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "logs" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after Down, dir holds %v, want only logs", names)
	}
	// A second Down (no state file) is a no-op.
	if err := Down(dir, time.Second); err != nil {
		t.Errorf("second Down: %v", err)
	}
}

func TestCheckBinaries(t *testing.T) {
	dir := t.TempDir()
	err := CheckBinaries(dir)
	if err == nil || !strings.Contains(err.Error(), "make cluster-bins") || !strings.Contains(err.Error(), "kube-apiserver") {
		t.Fatalf("want an error naming the missing binaries and make cluster-bins, got %v", err)
	}
	for _, b := range Binaries() {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckBinaries(dir); err != nil {
		t.Errorf("complete dir rejected: %v", err)
	}
}

func TestDefaultBinDir(t *testing.T) {
	t.Setenv("INDEXED_CLUSTER_BIN", "/x/bin")
	if got := DefaultBinDir(); got != "/x/bin" {
		t.Errorf("with INDEXED_CLUSTER_BIN: %s", got)
	}
	t.Setenv("INDEXED_CLUSTER_BIN", "")
	t.Setenv("XDG_CACHE_HOME", "/c")
	if got, want := DefaultBinDir(), "/c/kubectl-indexed/cluster/"+KubernetesVersion+"/bin"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
