package shards

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func bigManifest(t testing.TB, shardsN, casesPerShard int, caseFmt string) *Manifest {
	t.Helper()
	m := &Manifest{APIVersion: APIVersion, Kind: Kind, Metadata: Metadata{Name: "big"}, Revision: "1"}
	c := 0
	for i := range shardsN {
		s := Shard{ID: fmt.Sprintf("s-%06d", i)}
		for range casesPerShard {
			s.Cases = append(s.Cases, fmt.Sprintf(caseFmt, c))
			c++
		}
		m.Shards = append(m.Shards, s)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

func checkStore(t *testing.T, m *Manifest, st *Store) {
	t.Helper()
	seen := map[string]int{}
	next := 0 // the parts hold contiguous ranges of indexes, in order
	for p, part := range st.Parts {
		if n := dataSize(part); n > ConfigMapBudget {
			t.Errorf("part %d holds %d bytes, over the budget", p, n)
		}
		for k := range part {
			seen[k]++
		}
		if part[CasesKey(next)] == "" {
			t.Errorf("part %d does not start at index %d", p, next)
		}
		next += len(part) / 2
	}
	if n := dataSize(st.Head) + dataSize(st.HeadBinary); n > ConfigMapBudget {
		t.Errorf("head holds %d bytes", n)
	}
	for i, s := range m.Shards {
		for _, k := range []string{CasesKey(i), IDKey(i)} {
			if seen[k] != 1 {
				t.Fatalf("key %s is in %d parts", k, seen[k])
			}
		}
		for _, part := range st.Parts {
			if v, ok := part[CasesKey(i)]; ok && (v != CasesText(s.Cases) || part[IDKey(i)] != s.ID+"\n") {
				t.Fatalf("index %d holds other files", i)
			}
		}
	}
	ids, err := IDsFromConfigMap(&corev1.ConfigMap{Data: st.Head, BinaryData: st.HeadBinary})
	if err != nil || len(ids) != len(m.Shards) || ids[len(ids)-1] != m.Shards[len(ids)-1].ID {
		t.Fatalf("shard IDs back from the head: %d, %v", len(ids), err)
	}
}

func TestStoreSmallIsOneConfigMap(t *testing.T) {
	m := bigManifest(t, 6, 2, "case-%04d")
	st, err := ManifestStore(m)
	if err != nil {
		t.Fatal(err)
	}
	if l := st.Layout(); l.ConfigMaps != 1 || !l.ManifestMounted || l.ShardIDsCompressed || len(st.Head) != 14 || l.String() != "1 ConfigMap" {
		t.Errorf("layout %+v, %d keys", l, len(st.Head))
	}
}

// 200,000 case IDs of 20 bytes in 200 shards: 4.2 MB of shard files, a fifth of the 10^6-case
// run of issue 11 (measured in full: docs/benchmarks.md).
func TestStoreSplitsBetweenShards(t *testing.T) {
	m := bigManifest(t, 200, 1000, "eval/case-%09d")
	st, err := ManifestStore(m)
	if err != nil {
		t.Fatal(err)
	}
	l := st.Layout()
	if l.ConfigMaps < 5 || l.ManifestMounted || l.ShardIDsCompressed {
		t.Errorf("layout %+v", l)
	}
	if _, ok := st.Head[KeyManifest]; ok {
		t.Error("a 4 MB manifest.json in the head")
	}
	if !strings.HasPrefix(l.String(), fmt.Sprintf("%d ConfigMaps (a head and %d parts in one projected volume", l.ConfigMaps, l.ConfigMaps-1)) {
		t.Errorf("%s", l)
	}
	checkStore(t, m, st)
}

// 100,000 shards: shard-ids.json alone (1.2 MB) is more than half a ConfigMap and is stored
// compressed.
func TestStoreCompressesShardIDs(t *testing.T) {
	m := bigManifest(t, 100000, 1, "c%07d")
	st, err := ManifestStore(m)
	if err != nil {
		t.Fatal(err)
	}
	if l := st.Layout(); !l.ShardIDsCompressed || l.ConfigMaps < 3 {
		t.Errorf("layout %+v", l)
	}
	checkStore(t, m, st)
}

func TestStoreRefusesAShardTooBig(t *testing.T) {
	m := bigManifest(t, 1, 50000, "eval/case-%09d")
	if _, err := ManifestStore(m); err == nil || !strings.Contains(err.Error(), `the files of index 0 (shard "s-000000") take`) {
		t.Errorf("err %v", err)
	}
	s := Summarize("f", m)
	if note := StoreNote(m, &s); !strings.HasPrefix(note, "create would refuse it") || s.StoreError == "" {
		t.Errorf("note %q", note)
	}
}
