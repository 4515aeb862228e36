package scaffold

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// The worker contract: where the shard files are mounted and what the worker's environment
// holds. Documented in docs/create.md ("The worker contract"); never change one casually.
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
)

// ConfigMapName is the name of the ConfigMap made from m: the manifest's name, "-shards-" and
// the first HashLength hex digits of its hash. The same manifest always gets the same name in
// any namespace, so a second create reuses it and a changed manifest cannot overwrite it.
func ConfigMapName(m *shards.Manifest) string {
	return m.Metadata.Name + "-shards-" + m.ShortHash(HashLength)
}

// manifestLabels are the labels recording m on the ConfigMap and the Job.
func manifestLabels(m *shards.Manifest) map[string]string {
	l := make(map[string]string, len(m.Metadata.Labels)+3)
	maps.Copy(l, m.Metadata.Labels)
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

// BuildConfigMaps returns the immutable ConfigMaps holding m in namespace, the head first (see
// shards.BuildStore for the layout). Their content depends on m alone (not on the Job), so that
// every Job made from the same manifest can share them.
//
// Keys: manifest.json (the canonical manifest), shard-ids.json (the shard IDs in completion
// index order), and for every index i: index-<i>.cases (the cases, one per line) and
// index-<i>.id (the shard ID and a newline). The head is named ConfigMapName(m); parts add
// "-<part number>".
func BuildConfigMaps(m *shards.Manifest, namespace string) ([]*corev1.ConfigMap, *shards.Store, error) {
	st, err := shards.ManifestStore(m)
	if err != nil {
		return nil, nil, fmt.Errorf("shard manifest %q cannot be stored: %w", m.Metadata.Name, err)
	}
	return storeConfigMaps(st, ConfigMapName(m), namespace, manifestLabels(m), manifestAnnotations(m)), st, nil
}

// storeConfigMaps turns a store into immutable ConfigMaps: the head named name, parts
// name-<p>, each with the labels and annotations given.
func storeConfigMaps(st *shards.Store, name, namespace string, labels, annotations map[string]string) []*corev1.ConfigMap {
	meta := func(n string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: n, Namespace: namespace, Labels: maps.Clone(labels), Annotations: maps.Clone(annotations)}
	}
	cms := []*corev1.ConfigMap{immutableConfigMap(meta(name), st.Head, st.HeadBinary)}
	for p, part := range st.Parts {
		cms = append(cms, immutableConfigMap(meta(name+"-"+strconv.Itoa(p)), part, nil))
	}
	return cms
}

func immutableConfigMap(meta metav1.ObjectMeta, data map[string]string, bin map[string][]byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta,
		Immutable: ptr.To(true), Data: data, BinaryData: bin}
}

// NotImmutable is Difference's answer for a ConfigMap that holds the same data as want but is
// not immutable: its content is right, only the flag is not.
const NotImmutable = "it is not immutable"

// Difference says how an existing ConfigMap differs from the one Build made (want), or returns
// "" when it holds the same data and is immutable, so it can be reused as it is. A difference
// in the data is named before a missing immutable flag, so that NotImmutable means the data is
// the same.
func Difference(existing, want *corev1.ConfigMap) string {
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
	for _, k := range slices.Sorted(maps.Keys(want.BinaryData)) {
		if v, ok := existing.BinaryData[k]; !ok || !bytes.Equal(v, want.BinaryData[k]) {
			return fmt.Sprintf("its binaryData key %q is missing or holds different content", k)
		}
	}
	if len(existing.BinaryData) > len(want.BinaryData) {
		return "it has extra binaryData"
	}
	if existing.Immutable == nil || !*existing.Immutable {
		return NotImmutable
	}
	return ""
}
