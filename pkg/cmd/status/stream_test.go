package status

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// A JSON --pods-file holding one Pod (kubectl get pod NAME -o json), a stream of Pods, or a
// stream of Lists gives the report the general reader gives for the same pods in YAML; before,
// the streamed reader refused all but a single List ("expected Pods ..., found kind "Pod"").
func TestStreamedPodsOnePodAndStreams(t *testing.T) {
	j, pods := seed()
	jobFile, _ := writeObjects(t, j, pods)
	dir := t.TempDir()
	now := []string{"--now", "2026-03-01T12:01:00Z", "-o", "json"}
	marshal := func(v any) []byte {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	podJSON := func(p *corev1.Pod) []byte {
		q := p.DeepCopy()
		q.APIVersion, q.Kind = "v1", "Pod"
		return marshal(q)
	}
	list := func(ps []*corev1.Pod) []byte {
		l := corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
		for _, p := range ps {
			l.Items = append(l.Items, *p)
		}
		return marshal(l)
	}
	var stream, compact, yamlStream []byte
	for _, p := range pods {
		stream = append(append(stream, podJSON(p)...), '\n')
		var c bytes.Buffer
		if err := json.Compact(&c, podJSON(p)); err != nil {
			t.Fatal(err)
		}
		compact = append(compact, c.Bytes()...) // {...}{...}, no space between
		y, err := yaml.JSONToYAML(podJSON(p))
		if err != nil {
			t.Fatal(err)
		}
		yamlStream = append(append(yamlStream, "---\n"...), y...)
	}
	onePodYAML, err := yaml.JSONToYAML(podJSON(pods[0]))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	report := func(stdin string, podsFile string) result {
		return run(t, nil, stdin, append([]string{"-f", jobFile, "--pods-file", podsFile}, now...)...)
	}
	for name, tc := range map[string]struct{ json, yaml []byte }{
		"one pod":         {podJSON(pods[0]), onePodYAML},
		"stream of pods":  {stream, yamlStream},
		"compact stream":  {compact, yamlStream},
		"stream of lists": {append(append(list(pods[:2]), '\n'), list(pods[2:])...), yamlStream},
		"pod then list":   {append(podJSON(pods[0]), list(pods[1:])...), yamlStream},
	} {
		general := report("", write("general.yaml", tc.yaml))
		streamed := report("", write("streamed.json", tc.json))
		stdin := report(string(tc.json), "-")
		if general.code != 0 || streamed.code != 0 || streamed.out != general.out || stdin.out != general.out {
			t.Errorf("%s: reports differ: streamed exit %d %s\n%s\n--- stdin exit %d %s\n--- general (YAML) exit %d %s\n%s",
				name, streamed.code, streamed.errOut, streamed.out, stdin.code, stdin.errOut, general.code, general.errOut, general.out)
		}
	}
	// Other kinds are still refused, with a message that does not contradict itself.
	r := report("", write("job.json", marshal(j)))
	if r.code != exitcode.Usage || !strings.Contains(r.errOut, `expected pods (a PodList or List as kubectl get pods -o json writes it, or a Pod), found kind "Job"`) {
		t.Errorf("a Job as pods: exit %d, %s", r.code, r.errOut)
	}
}
