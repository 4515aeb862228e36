package shards

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

// SummaryKind is the kind of the report `kubectl indexed shards validate -o json|yaml` prints.
const SummaryKind = contract.ShardManifestSummary

// Summary describes a valid manifest. Its JSON field names are a public contract (docs/shards.md).
type Summary struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// File is where the manifest was read from ("-" for stdin).
	File     string `json:"file"`
	Name     string `json:"name"`
	Revision string `json:"revision"`
	// Hash is "sha256:" and the hex SHA-256 of the canonical serialisation.
	Hash string `json:"hash"`
	// ConfigMap is the name `kubectl indexed create` gives the shard ConfigMap.
	ConfigMap string `json:"configMap"`
	// Shards is the number of shards (the Job's completions), Cases the number of cases.
	Shards int `json:"shards"`
	Cases  int `json:"cases"`
	// Smallest and Largest are the sizes of the smallest and largest shard.
	Smallest int `json:"smallest"`
	Largest  int `json:"largest"`
	// Labels are the manifest's labels.
	Labels map[string]string `json:"labels,omitempty"`
	// Store says how create lays the shards out in ConfigMaps (store.go); StoreError why it
	// cannot (create would refuse the manifest).
	Store      *Layout `json:"store,omitempty"`
	StoreError string  `json:"storeError,omitempty"`
}

// StoreNote says in a few words, for the one-line summaries of split and validate, what create
// will do with m's size: "" for one ConfigMap (nothing to say), else the layout or the reason
// create would refuse it. The Summary's Store and StoreError are set too when s is not nil.
func StoreNote(m *Manifest, s *Summary) string {
	st, err := ManifestStore(m)
	if err != nil {
		if s != nil {
			s.StoreError = err.Error()
		}
		return "create would refuse it: " + err.Error()
	}
	l := st.Layout()
	if s != nil {
		s.Store = &l
	}
	if l.ConfigMaps == 1 {
		return ""
	}
	return fmt.Sprintf("stored in %s, %d bytes", l, l.Bytes)
}

// Summarize returns the summary of m, a valid manifest (ConfigMap is left for the caller to
// fill in).
func Summarize(file string, m *Manifest) Summary {
	bySize := func(a, b Shard) int { return cmp.Compare(len(a.Cases), len(b.Cases)) }
	return Summary{APIVersion: APIVersion, Kind: SummaryKind, File: file, Name: m.Metadata.Name,
		Revision: string(m.Revision), Hash: m.Hash(), Shards: len(m.Shards), Cases: m.NumCases(), Labels: m.Metadata.Labels,
		Smallest: len(slices.MinFunc(m.Shards, bySize).Cases), Largest: len(slices.MaxFunc(m.Shards, bySize).Cases)}
}
