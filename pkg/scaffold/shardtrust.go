package scaffold

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// TrustedShards is the one decision of which shard IDs a report about a Job shows, live or
// offline: those of the ConfigMap the Job names (annotation indexed.kubectl.io/shards-configmap),
// when its pod template mounts that ConfigMap as the shard volume or mounts none, and when the
// ConfigMap can be had and read. get fetches the ConfigMap by name: it returns it, or nil and a
// note saying why it cannot be had (the API server's answer, or what to give offline).
//
// It returns the IDs and the ConfigMap's name, or no IDs and the notes that say why (none when
// the Job names no shard ConfigMap). get is not called when the annotation cannot be trusted.
func TrustedShards(job *batchv1.Job, get func(name string) (*corev1.ConfigMap, string)) (ids []string, configMap string, notes []string) {
	name, ok := shards.ConfigMapNameFromJob(job)
	if !ok {
		return nil, "", nil
	}
	if note := ShardMountMismatch(job, name); note != "" {
		return nil, "", []string{note}
	}
	cm, why := get(name)
	if cm == nil {
		return nil, "", []string{why}
	}
	ids, err := shards.IDsFromConfigMap(cm)
	if err != nil {
		return nil, "", []string{fmt.Sprintf("Shard IDs are not shown: %v.", err)}
	}
	return ids, name, nil
}

// ShardMountMismatch says, when the ConfigMap the Job's shards-configmap annotation names is not
// the one its pod template mounts as the shard volume, that the annotation cannot be trusted:
// the pods read their shards from the mounted ConfigMap, so shard IDs taken from the
// annotation's would be another manifest's. "" when they agree, or when the template has no
// shard volume (a Job annotated by hand, whose workers read their shards some other way).
func ShardMountMismatch(job *batchv1.Job, annotated string) string {
	mounted := ShardConfigMapNames(&job.Spec.Template.Spec)
	switch {
	case len(mounted) == 0:
		return ""
	case mounted[0] != annotated:
		return fmt.Sprintf("The Job names shard ConfigMap %q (annotation %s) but its pods mount ConfigMap %q: the annotation was changed after create, so shard IDs are not shown; the pods read %q.",
			annotated, shards.AnnotationShardsConfigMap, mounted[0], mounted[0])
	}
	return ""
}
