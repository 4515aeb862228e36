package namecompletion

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func indexedJob(n int32, failed string) *batchv1.Job {
	return &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "ml"},
		Spec: batchv1.JobSpec{Completions: &n}, Status: batchv1.JobStatus{FailedIndexes: &failed}}
}

// logs --index <TAB> offers the Job's indexes, the failed ones first (issue 36, item 11).
func TestIndexCandidates(t *testing.T) {
	job := indexedJob(25, "3,17")
	for _, c := range []struct {
		typed string
		want  []string
	}{
		{"", append([]string{"3\tfailed", "17\tfailed", "0", "1", "2"}, "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "18", "19", "20", "21", "22", "23", "24")},
		{"1", []string{"17\tfailed", "1", "10", "11", "12", "13", "14", "15", "16", "18", "19"}},
		{"3,2", []string{"3,2", "3,20", "3,21", "3,22", "3,23", "3,24"}},
		{"9", []string{"9"}},
		{"30", nil},
	} {
		if got := IndexCandidates(job, c.typed); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.typed, got, c.want)
		}
	}
	if got := IndexCandidates(indexedJob(5000, ""), ""); len(got) != maxIndexCandidates {
		t.Errorf("5000 indexes: %d candidates", len(got))
	}
}

// The completion reads the Job named by the argument from the cluster (one GET).
func TestJobIndexesFromTheCluster(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/batch/v1/namespaces/ml/jobs/eval" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(indexedJob(3, "1"))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "config")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- {name: c, cluster: {server: \"" + srv.URL + "\"}}\nusers:\n- {name: u, user: {token: x}}\n" +
		"contexts:\n- {name: x, context: {cluster: c, user: u, namespace: ml}}\ncurrent-context: x\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &path
	got, dir := JobIndexes(flags)(nil, []string{"job/eval"}, "")
	if !slices.Equal(got, []string{"1\tfailed", "0", "2"}) || dir&cobra.ShellCompDirectiveNoFileComp == 0 {
		t.Errorf("got %q (%v)", got, dir)
	}
	if got, _ := JobIndexes(flags)(nil, nil, ""); got != nil {
		t.Errorf("no Job given: %q", got)
	}
	if got, _ := JobIndexes(flags)(nil, []string{"other"}, ""); got != nil {
		t.Errorf("a Job that does not exist: %q", got)
	}
}
