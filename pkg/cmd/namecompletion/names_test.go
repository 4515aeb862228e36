package namecompletion

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- {name: prod, cluster: {server: "https://127.0.0.1:1"}}
- {name: dev, cluster: {server: "https://127.0.0.1:1"}}
users:
- {name: alice, user: {token: x}}
contexts:
- {name: prod-admin, context: {cluster: prod, user: alice}}
- {name: dev-admin, context: {cluster: dev, user: alice}}
- {name: prod-view, context: {cluster: prod, user: alice}}
current-context: dev-admin
`

func TestKubeconfigNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &path
	for _, tc := range []struct {
		which, prefix string
		want          []string
	}{
		{"context", "", []string{"dev-admin", "prod-admin", "prod-view"}},
		{"context", "prod", []string{"prod-admin", "prod-view"}},
		{"cluster", "", []string{"dev", "prod"}},
		{"user", "a", []string{"alice"}},
		{"user", "b", nil},
	} {
		got, _ := KubeconfigNames(flags, tc.which)(nil, nil, tc.prefix)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: got %q, want %q", tc.which, tc.prefix, got, tc.want)
		}
	}
}

func TestNamesFromAnUnreachableClusterCompleteNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &path
	if got, _ := JobNames(flags)(nil, nil, ""); got != nil {
		t.Errorf("job names from an unreachable cluster: %q", got)
	}
	if got, _ := JobNames(flags)(nil, []string{"already-given"}, ""); got != nil {
		t.Errorf("a second argument must not be completed: %q", got)
	}
}
