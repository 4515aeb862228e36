package scaffold

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// TrustedShards is the one decision of which shard IDs a report about a Job shows, live or
// offline: those of the ConfigMap the Job names (annotation indexed.kubectl.io/shards-configmap),
// when its pod template mounts that ConfigMap as the shard volume or mounts none, and when the
// ConfigMap can be had and read. get fetches the ConfigMap by name: it returns it, or nil and a
// note saying why it cannot be had (the API server's answer, or what to give offline).
//
// The ConfigMap must also be the one the Job was made with (ShardsChanged): a ConfigMap deleted
// and made again with other content keeps its name and labels.
//
// It returns the IDs and the ConfigMap's name, or no IDs and the notes that say why (none when
// the Job names no shard ConfigMap). changed is set, and is also a note, when the ConfigMap is
// not the one the Job was made with: callers warn about it. get is not called when the
// annotation cannot be trusted.
func TrustedShards(job *batchv1.Job, get func(name string) (*corev1.ConfigMap, string)) (ids []string, configMap string, notes []string, changed string) {
	name, ok := shards.ConfigMapNameFromJob(job)
	if !ok {
		return nil, "", nil, ""
	}
	if note := ShardMountMismatch(job, name); note != "" {
		return nil, "", []string{note}, ""
	}
	cm, why := get(name)
	if cm == nil {
		return nil, "", []string{why}, ""
	}
	ids, err := shards.IDsFromConfigMap(cm)
	if err != nil {
		return nil, "", []string{fmt.Sprintf("Shard IDs are not shown: %v.", err)}, ""
	}
	if changed := ShardsChanged(job, cm, ids); changed != "" {
		return nil, "", []string{fmt.Sprintf("Shard IDs are not shown: %s.", changed)}, changed
	}
	return ids, name, nil, ""
}

// ShardsChanged says why the shard ConfigMap cm, listing ids, is not the one job was made with,
// or "" when nothing shows that. Job's manifest-hash annotation vouches for the manifest copy in
// cm (shards.ManifestCopyIDs, the check reconcile and retry make), and the copy for the IDs:
// a root Job's are the manifest's, in order; a retry's are some of them. A store with no copy
// (a manifest too large to be mounted) is checked by its own manifest-hash annotation only.
func ShardsChanged(job *batchv1.Job, cm *corev1.ConfigMap, ids []string) string {
	want := shards.RecordedHash(job)
	if want == "" {
		return "" // nothing vouches for a copy (a Job annotated by hand)
	}
	mids, ok, err := shards.ManifestCopyIDs(cm, want)
	switch {
	case err != nil:
		return err.Error()
	case !ok:
		if got := shards.RecordedHash(cm); got != "" && got != want {
			return fmt.Sprintf("configmap %q is annotated with manifest %s but the Job records %s: it was replaced or changed", cm.Name, got, want)
		}
		return ""
	}
	if !lineage.IsRetry(job) {
		if !slices.Equal(ids, mids) {
			return fmt.Sprintf("configmap %q lists %d shard IDs that are not those of its manifest copy (%d shards): it was replaced or changed", cm.Name, len(ids), len(mids))
		}
		return ""
	}
	in := sets.New(mids...)
	for k, id := range ids {
		if !in.Has(id) {
			return fmt.Sprintf("configmap %q gives index %d shard ID %q, which its manifest copy does not have: it was replaced or changed", cm.Name, k, id)
		}
	}
	return ""
}

// ShardMountMismatch says, when the ConfigMap the Job's shards-configmap annotation names is not
// the one its pod template mounts as the shard volume, that the annotation cannot be trusted:
// the pods read their shards from the mounted ConfigMap, so shard IDs taken from the
// annotation's would be another manifest's. "" when they agree, or when the template has no
// shard volume (a Job annotated by hand, whose workers read their shards some other way).
func ShardMountMismatch(job *batchv1.Job, annotated string) string {
	if mounted := ShardConfigMapNames(&job.Spec.Template.Spec); len(mounted) > 0 && mounted[0] != annotated {
		return fmt.Sprintf("The Job names shard ConfigMap %q (annotation %s) but its pods mount ConfigMap %q: the annotation was changed after create, so shard IDs are not shown; the pods read %q.",
			annotated, shards.AnnotationShardsConfigMap, mounted[0], mounted[0])
	}
	return ""
}
