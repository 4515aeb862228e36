package namecompletion

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobref"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// maxIndexCandidates bounds what a TAB offers on a Job of thousands of indexes.
const maxIndexCandidates = 100

// JobIndexes completes a flag whose value is completion indexes of the Job named by the first
// argument (logs --index): one GET of the Job, then its failed indexes first (described
// "failed"), then the others that start with what was typed. After a comma, the last element
// of the list is completed. Errors (no Job given, no cluster) complete nothing.
func JobIndexes(getter genericclioptions.RESTClientGetter) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		if len(args) == 0 || getter == nil {
			return nil, none
		}
		name, err := jobref.Name(args[0])
		if err != nil {
			return nil, none
		}
		ns, _, err := getter.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return nil, none
		}
		cfg, err := getter.ToRESTConfig()
		if err != nil {
			return nil, none
		}
		cfg.Timeout = lookupTimeout
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, none
		}
		ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
		defer cancel()
		job, err := client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, none
		}
		return IndexCandidates(job, toComplete), none | cobra.ShellCompDirectiveKeepOrder
	}
}

// IndexCandidates are the completions of toComplete, a list of job's completion indexes being
// typed: the failed indexes first ("INDEX\tfailed"), then every other index, each starting with
// what is typed after the last comma, at most maxIndexCandidates.
func IndexCandidates(job *batchv1.Job, toComplete string) []string {
	if job.Spec.Completions == nil {
		return nil
	}
	head, word := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		head, word = toComplete[:i+1], toComplete[i+1:]
	}
	_, failed := jobpolicy.StatusIndexes(job)
	var out []string
	add := func(i int, desc string) bool {
		s := strconv.Itoa(i)
		if !strings.HasPrefix(s, word) {
			return true
		}
		if desc != "" {
			s += "\t" + desc
		}
		out = append(out, head+s)
		return len(out) < maxIndexCandidates
	}
	for i := range failed.All() {
		if !add(i, "failed") {
			return out
		}
	}
	for i := range failed.Complement(int(*job.Spec.Completions)).All() {
		if !add(i, "") {
			return out
		}
	}
	return out
}
