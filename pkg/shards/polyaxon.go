package shards

import "fmt"

// A Polyaxon operation whose matrix maps one run per shard: the Polyaxon boundary of a shard
// manifest (docs/integrations.md#polyaxon). The fields follow Polyaxon's schemas exactly:
//
//   - V1Operation: polyaxon/polyaxon core/polyaxon/polyflow/operations/operation.py (kind
//     "operation", version, name, description, tags, params, matrix, termination, and exactly
//     one of hubRef, dagRef, urlRef, pathRef, component), also sdks/js/http_client/v1/docs/V1Operation.md.
//   - V1Mapping: core/polyaxon/polyflow/matrix/mapping.py (kind "mapping"; values, a list of
//     dictionaries passed as params to each run; concurrency, a positive integer; earlyStopping).
//
// Each value is one shard, in completion-index order, with the same keys a native Indexed Job's
// worker gets from its environment: the index, the shard ID, and the manifest's name,
// revision and hash, so that a worker writes the same receipt either way and reconcile checks
// either.

// PolyaxonSpecVersion is the Polyaxon specification version the operation is written for.
const PolyaxonSpecVersion = 1.1

// PolyaxonOperation is a Polyaxon V1Operation with a V1Mapping matrix (the fields written).
type PolyaxonOperation struct {
	Version     float64         `json:"version"`
	Kind        string          `json:"kind"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
	Matrix      PolyaxonMapping `json:"matrix"`
	HubRef      string          `json:"hubRef,omitempty"`
	PathRef     string          `json:"pathRef,omitempty"`
}

// PolyaxonMapping is a Polyaxon V1Mapping.
type PolyaxonMapping struct {
	Kind        string             `json:"kind"`
	Concurrency int                `json:"concurrency,omitempty"`
	Values      []PolyaxonShardRun `json:"values"`
}

// PolyaxonShardRun is one value of the mapping: one shard. Its keys are the inputs the
// component must declare.
type PolyaxonShardRun struct {
	ShardIndex   int    `json:"shard_index"`
	ShardID      string `json:"shard_id"`
	Manifest     string `json:"manifest"`
	Revision     string `json:"revision"`
	ManifestHash string `json:"manifest_hash"`
}

// PolyaxonOptions tune PolyaxonExport.
type PolyaxonOptions struct {
	// Concurrency is matrix.concurrency: how many shard runs at once; 0 leaves it out
	// (Polyaxon's default).
	Concurrency int
	// HubRef or PathRef names the component each run executes (exactly one).
	HubRef, PathRef string
}

// PolyaxonExport returns the operation that runs every shard of m as one run of a Polyaxon
// mapping, in completion-index order.
func PolyaxonExport(m *Manifest, o PolyaxonOptions) (*PolyaxonOperation, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	switch {
	case o.Concurrency < 0:
		return nil, fmt.Errorf("concurrency must be positive (Polyaxon's V1Mapping takes a PositiveInt), not %d", o.Concurrency)
	case o.Concurrency > len(m.Shards):
		return nil, fmt.Errorf("concurrency %d is above the %d shards of %s: at most %d runs can go at once", o.Concurrency, len(m.Shards), m.Metadata.Name, len(m.Shards))
	case (o.HubRef == "") == (o.PathRef == ""):
		return nil, fmt.Errorf("give exactly one component reference, a hubRef or a pathRef (Polyaxon requires one and only one)")
	}
	hash := m.Hash()
	rev := string(m.Revision)
	op := &PolyaxonOperation{
		Version:     PolyaxonSpecVersion,
		Kind:        "operation",
		Name:        m.Metadata.Name,
		Description: fmt.Sprintf("%d shards of manifest %s, revision %s (%s), one run each", len(m.Shards), m.Metadata.Name, rev, hash),
		Tags:        []string{"kubectl-indexed", "manifest:" + m.Metadata.Name, "revision:" + rev},
		Matrix:      PolyaxonMapping{Kind: "mapping", Concurrency: o.Concurrency, Values: make([]PolyaxonShardRun, len(m.Shards))},
		HubRef:      o.HubRef,
		PathRef:     o.PathRef,
	}
	for i, s := range m.Shards {
		op.Matrix.Values[i] = PolyaxonShardRun{ShardIndex: i, ShardID: s.ID, Manifest: m.Metadata.Name, Revision: rev, ManifestHash: hash}
	}
	return op, nil
}
