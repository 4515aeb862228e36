package scaffold

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// The worker contract: where the shard files are mounted and what the worker's environment
// holds. Documented in the README ("The worker contract"); never change one casually.
const (
	// MountPath is where the ConfigMap is mounted, read-only, in the worker container.
	MountPath = "/etc/indexed"
	// VolumeName is the name of the ConfigMap volume in the pod template.
	VolumeName = "indexed-shards"

	EnvCompletionIndex  = "JOB_COMPLETION_INDEX"
	EnvShardFile        = "INDEXED_SHARD_FILE"
	EnvShardIDFile      = "INDEXED_SHARD_ID_FILE"
	EnvManifestFile     = "INDEXED_MANIFEST_FILE"
	EnvManifestName     = "INDEXED_MANIFEST_NAME"
	EnvManifestRevision = "INDEXED_MANIFEST_REVISION"
	EnvManifestHash     = "INDEXED_MANIFEST_HASH"
	EnvInvalidInputCode = "INDEXED_INVALID_INPUT_EXIT_CODE"

	// AnnotationInvalidInputExitCode on the Job records the exit code that means "invalid
	// input, do not retry".
	AnnotationInvalidInputExitCode = shards.Prefix + "invalid-input-exit-code"
	// AnnotationWorkerContainer on the Job names the worker container.
	AnnotationWorkerContainer = shards.Prefix + "worker-container"

	// HashLength is how many hex digits of the manifest hash go into the ConfigMap name and
	// the hash label.
	HashLength = 10
	// MaxConfigMapBytes is the API server's limit on a ConfigMap's data (1 MiB).
	MaxConfigMapBytes = 1 << 20
)

// ShardCasesKey is the ConfigMap key holding the cases of the shard that completion index i
// runs, one per line.
func ShardCasesKey(i int) string { return "index-" + strconv.Itoa(i) + ".cases" }

// ShardIDKey is the ConfigMap key holding the ID of the shard completion index i runs.
func ShardIDKey(i int) string { return "index-" + strconv.Itoa(i) + ".id" }

// ConfigMapName is the name of the ConfigMap made from m: the manifest's name, "-shards-" and
// the first HashLength hex digits of its hash. The same manifest always gets the same name in
// any namespace, so a second create reuses it and a changed manifest cannot overwrite it.
func ConfigMapName(m *shards.Manifest) string {
	return m.Metadata.Name + "-shards-" + m.ShortHash(HashLength)
}

// manifestLabels are the labels recording m on the ConfigMap and the Job.
func manifestLabels(m *shards.Manifest) map[string]string {
	l := make(map[string]string, len(m.Metadata.Labels)+3)
	for k, v := range m.Metadata.Labels {
		l[k] = v
	}
	l[shards.LabelManifestName] = m.Metadata.Name
	l[shards.LabelManifestRevision] = string(m.Revision)
	l[shards.LabelManifestHash] = m.ShortHash(HashLength)
	return l
}

func manifestAnnotations(m *shards.Manifest) map[string]string {
	return map[string]string{
		shards.AnnotationManifestName:     m.Metadata.Name,
		shards.AnnotationManifestRevision: string(m.Revision),
		shards.AnnotationManifestHash:     m.Hash(),
	}
}

// BuildConfigMap returns the immutable ConfigMap holding m in namespace. Its content depends on
// m alone (not on the Job), so that every Job made from the same manifest can share it.
//
// Keys: manifest.json (the canonical manifest), shard-ids.json (the shard IDs in completion
// index order), and for every index i: index-<i>.cases (the cases, one per line) and
// index-<i>.id (the shard ID and a newline).
func BuildConfigMap(m *shards.Manifest, namespace string) (*corev1.ConfigMap, error) {
	ids, err := json.Marshal(m.IDs())
	if err != nil {
		return nil, err
	}
	data := make(map[string]string, 2+2*len(m.Shards))
	data[shards.KeyManifest] = string(m.Canonical())
	data[shards.KeyShardIDs] = string(ids) + "\n"
	for i, s := range m.Shards {
		data[ShardCasesKey(i)] = shards.CasesText(s.Cases)
		data[ShardIDKey(i)] = s.ID + "\n"
	}
	size := 0
	for _, v := range data {
		size += len(v)
	}
	if size > MaxConfigMapBytes {
		return nil, fmt.Errorf("shard manifest %q is too big for one ConfigMap: its files take %d bytes, over the API server's limit of %d (1 MiB); the cases are stored twice (manifest.json and the per-index files), so keep the case IDs under about 500 KB in total, or keep the data elsewhere and list only short references to it as cases",
			m.Metadata.Name, size, MaxConfigMapBytes)
	}
	immutable := true
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        ConfigMapName(m),
			Namespace:   namespace,
			Labels:      manifestLabels(m),
			Annotations: manifestAnnotations(m),
		},
		Immutable: &immutable,
		Data:      data,
	}, nil
}

// Difference says how an existing ConfigMap differs from the one Build made (want), or returns
// "" when it holds the same data and is immutable, so it can be reused as it is.
func Difference(existing, want *corev1.ConfigMap) string {
	if existing.Immutable == nil || !*existing.Immutable {
		return "it is not immutable"
	}
	for _, k := range slices.Sorted(maps.Keys(want.Data)) {
		v, ok := existing.Data[k]
		switch {
		case !ok:
			return fmt.Sprintf("it has no key %q", k)
		case v != want.Data[k]:
			return fmt.Sprintf("its key %q holds different content", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(existing.Data)) {
		if _, ok := want.Data[k]; !ok {
			return fmt.Sprintf("it has an extra key %q", k)
		}
	}
	if len(existing.BinaryData) > 0 {
		return "it has binaryData"
	}
	return ""
}
