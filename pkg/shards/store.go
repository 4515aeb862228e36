package shards

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// The shard store: how `kubectl indexed create` and `retry` lay the shard files out in
// ConfigMaps. The worker contract (the paths index-<i>.cases and index-<i>.id under the mount)
// is the same whatever the layout.
//
//   - One ConfigMap when everything fits in ConfigMapBudget: manifest.json, shard-ids.json and
//     every index's files (the layout of every manifest up to about 400,000 bytes of case IDs).
//   - Otherwise a head ConfigMap and parts: the head holds shard-ids.json (gzip-compressed in
//     binaryData as shard-ids.json.gz when it alone is too big) and manifest.json when it
//     fits beside it; each part holds the files of a contiguous range of indexes, packed in
//     index order up to ConfigMapBudget. The Job mounts them together as one projected volume,
//     so the worker sees the same directory. When manifest.json does not fit, it is not
//     mounted and INDEXED_MANIFEST_FILE is not set.
const (
	// MaxConfigMapBytes is the API server's limit on a ConfigMap's data and binaryData values
	// together (1 MiB, ValidateConfigMap's MaxSecretSize).
	MaxConfigMapBytes = 1 << 20
	// ConfigMapBudget is how much of one ConfigMap the store fills, counting keys and values:
	// a margin of 124 KiB under MaxConfigMapBytes for metadata (labels, annotations,
	// managedFields), and under etcd's default 1.5 MiB request limit.
	ConfigMapBudget = 900 << 10
	// KeyShardIDsGzip is KeyShardIDs gzip-compressed, in binaryData, in a head ConfigMap whose
	// shard-ids.json alone would not fit.
	KeyShardIDsGzip = KeyShardIDs + ".gz"
	// maxShardIDsBytes bounds what IDsFromConfigMap decompresses (100,000 IDs of 63 bytes
	// with quotes and commas take 6.6 MB).
	maxShardIDsBytes = 8 << 20
)

// IndexFiles are the two files of one completion index.
type IndexFiles struct {
	Cases string
	ID    string
}

// Store is the data of the shard ConfigMaps.
type Store struct {
	// Head is the ConfigMap a Job names in AnnotationShardsConfigMap; HeadBinary its binaryData.
	Head       map[string]string
	HeadBinary map[string][]byte
	// Parts hold the index files when the store is split; nil when Head holds everything.
	Parts []map[string]string
	// ManifestMounted says manifest.json is in Head.
	ManifestMounted bool
}

// Layout describes a store in a few numbers (shards split and validate print it).
type Layout struct {
	// ConfigMaps is how many ConfigMaps the store takes (1, or the head and its parts).
	ConfigMaps int `json:"configMaps"`
	// ManifestMounted is false when manifest.json is too big to be mounted.
	ManifestMounted bool `json:"manifestMounted"`
	// ShardIDsCompressed says shard-ids.json is stored gzip-compressed.
	ShardIDsCompressed bool `json:"shardIDsCompressed"`
	// Bytes counts the keys and values of every ConfigMap of the store.
	Bytes int `json:"bytes"`
}

// Layout returns the store's layout.
func (s *Store) Layout() Layout {
	l := Layout{ConfigMaps: 1 + len(s.Parts), ManifestMounted: s.ManifestMounted}
	_, l.ShardIDsCompressed = s.HeadBinary[KeyShardIDsGzip]
	l.Bytes = dataSize(s.Head) + dataSize(s.HeadBinary)
	for _, p := range s.Parts {
		l.Bytes += dataSize(p)
	}
	return l
}

// String says it in words: "1 ConfigMap" or "12 ConfigMaps (a head and 11 parts, manifest.json
// not mounted)".
func (l Layout) String() string {
	if l.ConfigMaps == 1 {
		return "1 ConfigMap"
	}
	s := fmt.Sprintf("%d ConfigMaps (a head and %d parts in one projected volume", l.ConfigMaps, l.ConfigMaps-1)
	if l.ShardIDsCompressed {
		s += ", shard-ids.json gzip-compressed"
	}
	if !l.ManifestMounted {
		s += ", manifest.json not mounted"
	}
	return s + ")"
}

// CasesKey and IDKey are the keys of index i's files.
func CasesKey(i int) string { return "index-" + strconv.Itoa(i) + ".cases" }

// IDKey is the key of the file holding the ID of index i's shard.
func IDKey(i int) string { return "index-" + strconv.Itoa(i) + ".id" }

// dataSize counts the keys and values of a ConfigMap's data or binaryData.
func dataSize[V string | []byte](m map[string]V) int {
	n := 0
	for k, v := range m {
		n += len(k) + len(v)
	}
	return n
}

// BuildStore lays out files (index i's files at i), the shard IDs in index order and the
// canonical manifest (nil: none to mount) in one ConfigMap, or a head and parts (see above).
// It fails when one index's files, or the compressed shard IDs, do not fit in a ConfigMap.
func BuildStore(files []IndexFiles, ids []string, manifest []byte) (*Store, error) {
	idsJSON, _ := json.Marshal(ids) // a []string always encodes
	idsJSON = append(idsJSON, '\n')
	filesSize := 0
	for i, f := range files {
		filesSize += len(CasesKey(i)) + len(f.Cases) + len(IDKey(i)) + len(f.ID)
	}
	headSize := len(KeyShardIDs) + len(idsJSON)
	if manifest != nil {
		headSize += len(KeyManifest) + len(manifest)
	}
	if headSize+filesSize <= ConfigMapBudget {
		s := &Store{Head: make(map[string]string, 2+2*len(files)), ManifestMounted: manifest != nil}
		s.Head[KeyShardIDs] = string(idsJSON)
		if manifest != nil {
			s.Head[KeyManifest] = string(manifest)
		}
		for i, f := range files {
			s.Head[CasesKey(i)], s.Head[IDKey(i)] = f.Cases, f.ID
		}
		return s, nil
	}

	s := &Store{Head: map[string]string{}}
	size := 0
	if len(KeyShardIDs)+len(idsJSON) <= ConfigMapBudget/2 {
		s.Head[KeyShardIDs] = string(idsJSON)
		size = len(KeyShardIDs) + len(idsJSON)
	} else {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(idsJSON)
		_ = zw.Close()
		if len(KeyShardIDsGzip)+buf.Len() > ConfigMapBudget/2 {
			return nil, fmt.Errorf("the %d shard IDs take %d bytes as JSON and %d gzip-compressed, more than half a ConfigMap (%d bytes): use shorter shard IDs", len(ids), len(idsJSON), buf.Len(), ConfigMapBudget/2)
		}
		s.HeadBinary = map[string][]byte{KeyShardIDsGzip: buf.Bytes()}
		size = len(KeyShardIDsGzip) + buf.Len()
	}
	if manifest != nil && size+len(KeyManifest)+len(manifest) <= ConfigMapBudget {
		s.Head[KeyManifest] = string(manifest)
		s.ManifestMounted = true
	}
	var part map[string]string
	partSize := 0
	for i, f := range files {
		n := len(CasesKey(i)) + len(f.Cases) + len(IDKey(i)) + len(f.ID)
		if n > ConfigMapBudget {
			return nil, fmt.Errorf("the files of index %d (shard %q) take %d bytes, more than one ConfigMap holds (%d bytes): split the manifest into more shards", i, ids[i], n, ConfigMapBudget)
		}
		if part == nil || partSize+n > ConfigMapBudget {
			part, partSize = map[string]string{}, 0
			s.Parts = append(s.Parts, part)
		}
		part[CasesKey(i)], part[IDKey(i)] = f.Cases, f.ID
		partSize += n
	}
	return s, nil
}

// ManifestStore is BuildStore for a whole manifest.
func ManifestStore(m *Manifest) (*Store, error) {
	files := make([]IndexFiles, len(m.Shards))
	for i, s := range m.Shards {
		files[i] = IndexFiles{Cases: CasesText(s.Cases), ID: s.ID + "\n"}
	}
	return BuildStore(files, m.IDs(), m.Canonical())
}

// shardIDsData returns the KeyShardIDs content of cm, uncompressing KeyShardIDsGzip.
func shardIDsData(data map[string]string, binary map[string][]byte) ([]byte, bool, error) {
	if raw, ok := data[KeyShardIDs]; ok {
		return []byte(raw), true, nil
	}
	z, ok := binary[KeyShardIDsGzip]
	if !ok {
		return nil, false, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, true, fmt.Errorf("key %q: %w", KeyShardIDsGzip, err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxShardIDsBytes+1))
	if err != nil {
		return nil, true, fmt.Errorf("key %q: %w", KeyShardIDsGzip, err)
	}
	if len(b) > maxShardIDsBytes {
		return nil, true, fmt.Errorf("key %q: more than %d bytes uncompressed", KeyShardIDsGzip, maxShardIDsBytes)
	}
	return b, true, nil
}
