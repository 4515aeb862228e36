package status

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// The streamed JSON reader, the general reader (YAML) and stdin give the same report.
func TestStreamedPodsSameAsGeneralReader(t *testing.T) {
	j, pods := seed()
	jobFile, podsFile := writeObjects(t, j, pods)
	now := []string{"--now", "2026-03-01T12:01:00Z"}
	streamed := run(t, nil, "", append([]string{"-f", jobFile, "--pods-file", podsFile, "-o", "json"}, now...)...)
	data, err := os.ReadFile(podsFile)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	yamlFile := filepath.Join(t.TempDir(), "pods.yaml")
	if err := os.WriteFile(yamlFile, y, 0o600); err != nil {
		t.Fatal(err)
	}
	general := run(t, nil, "", append([]string{"-f", jobFile, "--pods-file", yamlFile, "-o", "json"}, now...)...)
	stdin := run(t, nil, string(data), append([]string{"-f", jobFile, "--pods-file", "-", "-o", "json"}, now...)...)
	stdinYAML := run(t, nil, string(y), append([]string{"-f", jobFile, "--pods-file", "-", "-o", "json"}, now...)...)
	if streamed.code != 0 || streamed.out != general.out || streamed.out != stdin.out || streamed.out != stdinYAML.out {
		t.Errorf("reports differ:\n%s%s\n---\n%s%s\n---\n%s%s\n---\n%s", streamed.out, streamed.errOut, general.out, general.errOut, stdin.out, stdin.errOut, stdinYAML.out+stdinYAML.errOut)
	}
}

func TestStreamedPodsErrors(t *testing.T) {
	j, pods := seed()
	jobFile, _ := writeObjects(t, j, pods)
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"not pods":      {`{"apiVersion":"v1","kind":"ConfigMapList","items":[]}`, `found kind "ConfigMapList"`},
		"a job in list": {`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"x"}}]}`, `items[0]`},
		"wrong type":    {`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","labels":[]}}]}`, `items[0] (line 1): metadata.labels: expected an object, found a list`},
		"truncated":     {`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod"`, "cannot read the pods"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(t, nil, "", "-f", jobFile, "--pods-file", p)
		if r.code != exitcode.Usage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", name, r.code, r.errOut, tc.want)
		}
	}
	// A field this release does not know (a newer server's, or a typo) is skipped, as kubectl
	// skips it.
	p := filepath.Join(dir, "unknown.json")
	_ = os.WriteFile(p, []byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spex":{}}]}`), 0o600)
	if r := run(t, nil, "", "-f", jobFile, "--pods-file", p); r.code != 0 {
		t.Errorf("unknown field: %+v", r)
	}
	// An empty list: pods were given, there are none.
	empty, _ := json.Marshal(corev1.PodList{})
	p = filepath.Join(dir, "empty.json")
	_ = os.WriteFile(p, []byte(strings.Replace(string(empty), "{", `{"kind":"PodList",`, 1)), 0o600)
	if r := run(t, nil, "", "-f", jobFile, "--pods-file", p); r.code != 0 || strings.Contains(r.out, "No pods given") {
		t.Errorf("empty list: %+v", r)
	}
}
