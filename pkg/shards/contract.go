package shards

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The keys below are a contract between `kubectl indexed create` (which writes them) and the
// commands that read a Job back (status, retry, diff). They are documented in docs/create.md;
// never rename one.
const (
	// Prefix is the domain of every annotation and label key this tool writes.
	Prefix = "indexed.kubectl.io/"

	// AnnotationShardsConfigMap on a Job names the ConfigMap (same namespace) holding its
	// shards. The ConfigMap has KeyShardIDs.
	AnnotationShardsConfigMap = Prefix + "shards-configmap"
	// AnnotationManifestName, AnnotationManifestRevision and AnnotationManifestHash record
	// the shard manifest a Job or ConfigMap was made from.
	AnnotationManifestName     = Prefix + "manifest-name"
	AnnotationManifestRevision = Prefix + "manifest-revision"
	AnnotationManifestHash     = Prefix + "manifest-hash"

	// LabelManifestName, LabelManifestRevision and LabelManifestHash are the selectable
	// forms (the hash label holds the first HashLabelLength hex digits, as label values are
	// at most 63 characters).
	LabelManifestName     = Prefix + "manifest-name"
	LabelManifestRevision = Prefix + "manifest-revision"
	LabelManifestHash     = Prefix + "manifest-hash"

	// KeyShardIDs is the ConfigMap key holding a JSON array of shard IDs in completion-index
	// order: element i is the shard that completion index i runs.
	KeyShardIDs = "shard-ids.json"
	// KeyManifest is the ConfigMap key holding the canonical manifest (JSON).
	KeyManifest = "manifest.json"
)

// ConfigMapNameFromJob returns the name of the ConfigMap holding job's shards, from the
// AnnotationShardsConfigMap annotation. ok is false when the Job does not carry it (it was not
// made by kubectl indexed create, or the annotation was removed).
func ConfigMapNameFromJob(job *batchv1.Job) (string, bool) {
	if job == nil {
		return "", false
	}
	name := job.Annotations[AnnotationShardsConfigMap]
	return name, name != ""
}

// IDsFromConfigMap returns the shard IDs in completion-index order from the KeyShardIDs key of
// cm (or its compressed form KeyShardIDsGzip in binaryData, see store.go). It fails, naming the ConfigMap, when the key is missing or does not hold a JSON array of
// valid, distinct shard IDs.
func IDsFromConfigMap(cm *corev1.ConfigMap) ([]string, error) {
	if cm == nil {
		return nil, fmt.Errorf("no configmap")
	}
	raw, ok, err := shardIDsData(cm.Data, cm.BinaryData)
	if err != nil {
		return nil, fmt.Errorf("configmap %q: %w", cm.Name, err)
	}
	if !ok {
		return nil, fmt.Errorf("configmap %q has no key %q: it was not written by kubectl indexed create", cm.Name, KeyShardIDs)
	}
	ids, err := ParseShardIDs(raw)
	if err != nil {
		return nil, fmt.Errorf("configmap %q key %q: %w", cm.Name, KeyShardIDs, err)
	}
	return ids, nil
}

// RecordedHash is the manifest hash obj records (its AnnotationManifestHash): on a Job, the
// hash of the manifest it was made with, the only thing that vouches for the copy in its shard
// ConfigMaps (ManifestFromConfigMap, ManifestCopyIDs); on a ConfigMap, the hash of the
// manifest it was written for. "" when obj has none (then nothing is vouched for or checked).
func RecordedHash(obj metav1.Object) string {
	return obj.GetAnnotations()[AnnotationManifestHash]
}

// ManifestFromConfigMap reads the manifest copy (KeyManifest) of a shard ConfigMap and checks
// it against wantHash, the manifest-hash annotation of the Job that mounts it ("" skips the
// check). A ConfigMap deleted and made again with other content keeps its name and labels:
// only the Job's hash vouches for it. ok is false, with no error, when the ConfigMap holds no
// copy (a manifest too large to be mounted).
func ManifestFromConfigMap(cm *corev1.ConfigMap, wantHash string) (m *Manifest, ok bool, err error) {
	if cm == nil {
		return nil, false, fmt.Errorf("no configmap")
	}
	raw, ok := cm.Data[KeyManifest]
	if !ok {
		return nil, false, nil
	}
	m, err = Parse(fmt.Sprintf("configmap %s key %s", cm.Name, KeyManifest), []byte(raw))
	if err != nil {
		return nil, true, err
	}
	if wantHash != "" && m.Hash() != wantHash {
		return nil, true, fmt.Errorf("configmap %q holds manifest %s but the Job records %s: it was replaced or changed", cm.Name, m.Hash(), wantHash)
	}
	return m, true, nil
}

// ManifestCopyIDs is ManifestFromConfigMap for a caller that needs only the shard IDs of the
// copy (status, on every report). When the copy's bytes are the canonical form whose hash is
// wantHash, as create and retry write them, only the IDs are decoded: parsing and validating a
// copy again takes about a second a megabyte. Any other copy is read by ManifestFromConfigMap.
func ManifestCopyIDs(cm *corev1.ConfigMap, wantHash string) (ids []string, ok bool, err error) {
	if cm != nil && wantHash != "" {
		raw, has := cm.Data[KeyManifest]
		var c struct {
			Shards []struct {
				ID string `json:"id"`
			} `json:"shards"`
		}
		if sum := sha256.Sum256([]byte(raw)); has && FormatHash(sum[:]) == wantHash && json.Unmarshal([]byte(raw), &c) == nil {
			ids = make([]string, len(c.Shards))
			for i, s := range c.Shards {
				ids[i] = s.ID
			}
			return ids, true, nil
		}
	}
	m, ok, err := ManifestFromConfigMap(cm, wantHash)
	if m == nil {
		return nil, ok, err
	}
	return m.IDs(), true, nil
}

// ParseShardIDs parses the content of KeyShardIDs: a JSON array of distinct, valid shard IDs.
func ParseShardIDs(data []byte) ([]string, error) {
	var ids []string
	if err := json.Unmarshal(data, &ids); err != nil {
		return nil, fmt.Errorf("not a JSON array of shard IDs: %w", err)
	}
	if ids == nil {
		return nil, fmt.Errorf("not a JSON array of shard IDs: null")
	}
	seen := make(map[string]int, len(ids))
	for i, id := range ids {
		if msg := ValidateShardID(id); msg != "" {
			return nil, fmt.Errorf("index %d: invalid shard ID %q: %s", i, id, msg)
		}
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("index %d: shard ID %q already used by index %d", i, id, j)
		}
		seen[id] = i
	}
	return ids, nil
}

// MaxPlainRetryJobs is the most Jobs one retry of a Job that create did not make runs (one Job
// per index, each seeing its original index): above it, retry refuses before anything is
// created, and status offers the retry in batches of this size. 1,000 indexes took 36 s and
// 2.6 MB of Jobs on the local control plane (docs/benchmarks.md, make bench-retry).
const MaxPlainRetryJobs = 1000
