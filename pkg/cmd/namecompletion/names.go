// Package namecompletion completes the names a command line takes from the cluster or the
// kubeconfig (Jobs, namespaces, contexts, clusters, users) for every verb and the root
// command's flags. It is a package of its own so that no verb package imports another.
package namecompletion

import (
	"context"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/metadata"
)

// lookupTimeout bounds a completion's call to the API server: a shell waiting on TAB must not
// hang on an unreachable cluster.
const lookupTimeout = 5 * time.Second

var (
	jobsResource       = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	namespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// JobNames completes a command's first argument with the names of the Jobs in the namespace
// that the kubeconfig flags select. It lists object metadata only, so a namespace with large
// Jobs stays cheap to complete. Errors (no cluster, no permission) complete nothing.
func JobNames(getter genericclioptions.RESTClientGetter) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ns, _, err := getter.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return listNames(getter, jobsResource, ns, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// Namespaces completes a flag value with the namespaces of the cluster.
func Namespaces(getter genericclioptions.RESTClientGetter) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return listNames(getter, namespacesResource, "", toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

func listNames(getter genericclioptions.RESTClientGetter, gvr schema.GroupVersionResource, namespace, prefix string) []string {
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return nil
	}
	cfg.Timeout = lookupTimeout
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	// Namespace("") lists a cluster-scoped resource (the namespaces).
	list, err := client.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var names []string
	for i := range list.Items {
		if name := list.Items[i].Name; strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// KubeconfigNames completes a flag value with the names of the contexts, clusters or users
// (which) in the kubeconfig the flags select.
func KubeconfigNames(getter genericclioptions.RESTClientGetter, which string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		cfg, err := getter.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var all iter.Seq[string]
		switch which {
		case "context":
			all = maps.Keys(cfg.Contexts)
		case "cluster":
			all = maps.Keys(cfg.Clusters)
		case "user":
			all = maps.Keys(cfg.AuthInfos)
		default:
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := slices.DeleteFunc(slices.Sorted(all), func(n string) bool { return !strings.HasPrefix(n, toComplete) })
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
