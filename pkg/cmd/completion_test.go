package cmd

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// complete runs `kubectl-indexed __complete args...` in process, as kubectl_complete-indexed
// and the shell scripts do, and returns the candidates and cobra's directive.
func complete(t *testing.T, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	root := NewCmdIndexed(streams)
	root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %q: %v", args, err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, ":") {
		t.Fatalf("__complete %q: no directive line in %q", args, out.String())
	}
	d, err := strconv.Atoi(last[1:])
	if err != nil {
		t.Fatalf("__complete %q: directive %q: %v", args, last, err)
	}
	var comps []string
	for _, l := range lines[:len(lines)-1] {
		// Candidates may carry a description after a tab.
		comps = append(comps, strings.SplitN(l, "\t", 2)[0])
	}
	return comps, cobra.ShellCompDirective(d)
}

func TestCompletionOfFixedValues(t *testing.T) {
	isolateKubeconfig(t, "")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"version", "-o", ""}, []string{"json", "yaml", "jsonpath=", "jsonpath-file=", "jsonpath-as-json=", "go-template=", "go-template-file=", "template=", "templatefile=", "custom-columns=", "custom-columns-file="}},
		// Fixed values are not filtered by prefix here; the shell scripts filter them.
		{[]string{"version", "--output", "y"}, []string{"json", "yaml", "jsonpath=", "jsonpath-file=", "jsonpath-as-json=", "go-template=", "go-template-file=", "template=", "templatefile=", "custom-columns=", "custom-columns-file="}},
		{[]string{"lint", "-o", ""}, []string{"json", "yaml", "sarif", "junit", "github", "jsonpath=", "jsonpath-file=", "jsonpath-as-json=", "go-template=", "go-template-file=", "template=", "templatefile=", "custom-columns=", "custom-columns-file="}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish", "powershell"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, d := complete(t, tc.args...)
			if !slices.Equal(got, tc.want) {
				t.Errorf("candidates %q, want %q", got, tc.want)
			}
			if d&cobra.ShellCompDirectiveNoFileComp == 0 {
				t.Errorf("directive %d lets the shell complete file names", d)
			}
		})
	}
}

// TestEveryOutputFlagCompletes walks the whole tree, so a verb added later is held to it too.
func TestEveryOutputFlagCompletes(t *testing.T) {
	isolateKubeconfig(t, "")
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	var checked []string
	walk(NewCmdIndexed(streams), func(c *cobra.Command) {
		if c.LocalFlags().Lookup("output") == nil {
			return
		}
		path := verbPath(c)
		checked = append(checked, strings.Join(path, " "))
		got, d := complete(t, append(path, "-o", "")...)
		if !slices.Contains(got, "json") || !slices.Contains(got, "yaml") {
			t.Errorf("%s -o <TAB> offers %q, want json and yaml among them", c.CommandPath(), got)
		}
		if d&cobra.ShellCompDirectiveNoFileComp == 0 {
			t.Errorf("%s -o <TAB>: directive %d lets the shell complete file names", c.CommandPath(), d)
		}
	})
	if len(checked) == 0 {
		t.Fatal("no command has an --output flag; version has one")
	}
	t.Logf("checked -o completion of: %s", strings.Join(checked, ", "))
}

// TestJobNamesCompleteFromTheCluster serves a minimal API (discovery, one namespace list, one
// Job list) and checks that the names come from it: namespaces for -n, and Jobs for every
// verb whose first argument is a JOB.
func TestJobNamesCompleteFromTheCluster(t *testing.T) {
	srv := fakeAPIServer(t, []string{"default", "ml"}, map[string][]string{
		"ml":      {"evaluation", "embed-corpus", "prepare-db"},
		"default": {"other"},
	})
	isolateKubeconfig(t, srv.URL)

	got, d := complete(t, "-n", "")
	if !slices.Equal(got, []string{"default", "ml"}) || d&cobra.ShellCompDirectiveNoFileComp == 0 {
		t.Errorf("-n <TAB>: %q (directive %d), want the namespaces from the server", got, d)
	}

	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	var verbs []string
	walk(NewCmdIndexed(streams), func(c *cobra.Command) {
		if f := strings.Fields(c.Use); len(f) > 1 && strings.Trim(f[1], "[]") == "JOB" {
			verbs = append(verbs, strings.Join(verbPath(c), " "))
		}
	})
	for _, verb := range verbs {
		t.Run(verb, func(t *testing.T) {
			args := strings.Fields(verb)
			got, d := complete(t, append(args, "")...)
			if want := []string{"embed-corpus", "evaluation", "prepare-db"}; !slices.Equal(got, want) {
				t.Errorf("%s <TAB>: %q, want %q (the Jobs of the context's namespace)", verb, got, want)
			}
			if d&cobra.ShellCompDirectiveNoFileComp == 0 {
				t.Errorf("%s <TAB>: directive %d lets the shell complete file names", verb, d)
			}
			got, _ = complete(t, append(args, "e")...)
			if want := []string{"embed-corpus", "evaluation"}; !slices.Equal(got, want) {
				t.Errorf("%s e<TAB>: %q, want %q", verb, got, want)
			}
			got, _ = complete(t, append(args, "-n", "default", "")...)
			if want := []string{"other"}; !slices.Equal(got, want) {
				t.Errorf("%s -n default <TAB>: %q, want %q", verb, got, want)
			}
		})
	}
	if !slices.Contains(verbs, "status") {
		t.Errorf("verbs taking a JOB: %q; status is one", verbs)
	}
	t.Logf("verbs completing Job names: %q", verbs)
}

// verbPath is c's path below the root, e.g. ["status"].
func verbPath(c *cobra.Command) []string {
	var path []string
	for ; c.HasParent(); c = c.Parent() {
		path = append([]string{c.Name()}, path...)
	}
	return path
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// isolateKubeconfig points KUBECONFIG at a file of this test (a context in namespace ml on
// server, or no cluster at all when server is empty) and the discovery cache at a temp dir.
func isolateKubeconfig(t *testing.T, server string) {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	content := "apiVersion: v1\nkind: Config\n"
	if server != "" {
		content += "clusters:\n- name: fake\n  cluster:\n    server: " + server + "\n" +
			"users:\n- name: fake\n  user:\n    token: fake\n" +
			"contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: ml\n" +
			"current-context: fake\n"
	}
	if err := os.WriteFile(kubeconfig, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	t.Setenv("KUBECACHEDIR", filepath.Join(dir, "cache"))
	t.Setenv("HOME", dir)
}

func fakeAPIServer(t *testing.T, namespaces []string, jobs map[string][]string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	reply := func(path string, body func() any) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(body())
		})
	}
	reply("/api", func() any {
		return &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}}
	})
	reply("/apis", func() any {
		gv := metav1.GroupVersionForDiscovery{GroupVersion: "batch/v1", Version: "v1"}
		return &metav1.APIGroupList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups:   []metav1.APIGroup{{Name: "batch", Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}},
		}
	})
	reply("/api/v1", func() any {
		return &metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "v1",
			APIResources: []metav1.APIResource{{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: []string{"get", "list"}, ShortNames: []string{"ns"}}},
		}
	})
	reply("/apis/batch/v1", func() any {
		return &metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "batch/v1",
			APIResources: []metav1.APIResource{{Name: "jobs", SingularName: "job", Namespaced: true, Kind: "Job", Verbs: []string{"get", "list"}}},
		}
	})
	reply("/api/v1/namespaces", func() any {
		list := &corev1.NamespaceList{TypeMeta: metav1.TypeMeta{Kind: "NamespaceList", APIVersion: "v1"}}
		for _, n := range namespaces {
			list.Items = append(list.Items, corev1.Namespace{TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: n}})
		}
		return list
	})
	for ns, names := range jobs {
		// The API server lists in key order, that is by name within a namespace.
		names = slices.Sorted(slices.Values(names))
		reply("/apis/batch/v1/namespaces/"+ns+"/jobs", func() any {
			list := &batchv1.JobList{TypeMeta: metav1.TypeMeta{Kind: "JobList", APIVersion: "batch/v1"}}
			for _, n := range names {
				list.Items = append(list.Items, batchv1.Job{TypeMeta: metav1.TypeMeta{Kind: "Job", APIVersion: "batch/v1"}, ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: ns}})
			}
			return list
		})
	}
	var unexpected bytes.Buffer
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		unexpected.WriteString(r.Method + " " + r.URL.Path + "\n")
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		if unexpected.Len() > 0 {
			t.Logf("requests the fake API server did not serve:\n%s", unexpected.String())
		}
	})
	return srv
}
