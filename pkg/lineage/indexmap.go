package lineage

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// An index map too large for the original-indexes annotation is kept in an immutable ConfigMap
// of its own (see shards.AnnotationOriginalIndexesFrom): not in the retry's shard ConfigMap,
// which every worker pod mounts (the map would become a file of the worker contract) and whose
// room is already laid out by the shard store.
const (
	// MaxIndexMapBytes bounds what an index-map ConfigMap holds (the interval text in data, or
	// its gzip in binaryData): 768 KiB, a quarter under the API server's 1 MiB for a
	// ConfigMap's data and well under etcd's 1.5 MiB request limit.
	MaxIndexMapBytes = 768 << 10
	// maxIndexMapText bounds the interval text a reader decompresses: far above any map a
	// retry writes (100,000 indexes of 8 digits take 900 KB), and a guard against a crafted
	// gzip stream.
	maxIndexMapText = 64 << 20
	// IndexMapInfix joins the root Job's name and the content hash in an index map's name.
	IndexMapInfix = "-index-map-"
	// mapHashLength is how many hex digits of the text's SHA-256 end the name.
	mapHashLength = 10
)

// indexMapLimit is MaxIndexMapBytes; tests lower it.
var indexMapLimit = MaxIndexMapBytes

// MapRef says where an index map is kept: a key of a ConfigMap in the Job's namespace.
type MapRef struct {
	ConfigMap string `json:"configMap"`
	Key       string `json:"key"`
}

// String is the annotation's value: "<configmap>/<key>".
func (r MapRef) String() string { return r.ConfigMap + "/" + r.Key }

// ParseMapRef reads "<configmap>/<key>", the value of annotation original-indexes-from.
func ParseMapRef(s string) (MapRef, error) {
	name, key, ok := strings.Cut(s, "/")
	if !ok {
		return MapRef{}, fmt.Errorf("%q is not <configmap>/<key>", s)
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return MapRef{}, fmt.Errorf("%q: ConfigMap name %q: %s", s, name, strings.Join(msgs, "; "))
	}
	if key != shards.KeyOriginalIndexes && key != shards.KeyOriginalIndexesGzip {
		return MapRef{}, fmt.Errorf("%q: key %q is neither %s nor %s", s, key, shards.KeyOriginalIndexes, shards.KeyOriginalIndexesGzip)
	}
	return MapRef{ConfigMap: name, Key: key}, nil
}

// MapHash is the suffix of an index map's ConfigMap name: the first 10 hex digits of the
// SHA-256 of the interval text.
func MapHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])[:mapHashLength]
}

// IndexMap is an index map laid out for its ConfigMap: Ref names the ConfigMap and key, Data
// or BinaryData is the ConfigMap's content.
type IndexMap struct {
	Ref        MapRef
	Data       map[string]string
	BinaryData map[string][]byte
}

// NewIndexMap lays out original, the root indexes of a retry of root Job root, for a
// ConfigMap named root + IndexMapInfix + MapHash(text): the interval text under
// KeyOriginalIndexes when it takes at most MaxIndexMapBytes, else compressed under
// KeyOriginalIndexesGzip. An error when even that is larger.
func NewIndexMap(root string, original indexes.Set) (*IndexMap, error) {
	text := original.String()
	m := &IndexMap{Ref: MapRef{ConfigMap: root + IndexMapInfix + MapHash(text)}}
	if msgs := validation.IsDNS1123Subdomain(m.Ref.ConfigMap); len(msgs) > 0 {
		return nil, fmt.Errorf("the index map's ConfigMap name %q: %s", m.Ref.ConfigMap, strings.Join(msgs, "; "))
	}
	if len(text) <= indexMapLimit {
		m.Ref.Key = shards.KeyOriginalIndexes
		m.Data = map[string]string{m.Ref.Key: text}
		return m, nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	_, _ = zw.Write([]byte(text))                            // a bytes.Buffer does not fail
	_ = zw.Close()
	if buf.Len() > indexMapLimit {
		return nil, fmt.Errorf("the index map of this retry takes %d bytes as an interval string and %d compressed, over the %d a ConfigMap of it may hold: retry fewer or more contiguous indexes at a time with --indexes", len(text), buf.Len(), indexMapLimit)
	}
	m.Ref.Key = shards.KeyOriginalIndexesGzip
	m.BinaryData = map[string][]byte{m.Ref.Key: buf.Bytes()}
	return m, nil
}

// Resolved reports whether the index map is at hand: always for a root Job (nil) or a map
// kept in the annotation, and for a map kept in a ConfigMap once Resolve read it.
func (l *Lineage) Resolved() bool {
	return l == nil || l.OriginalFrom == nil || !l.Original.IsEmpty()
}

// Resolve reads the index map of job (whose lineage l is, as Read returned it) from cm, the
// ConfigMap l.OriginalFrom names. It checks that cm is the one the retry wrote (its name ends
// with the hash of the text it holds) and that the map has one index per completion. A
// lineage whose map is in the annotation is left as it is.
func (l *Lineage) Resolve(job *batchv1.Job, cm *corev1.ConfigMap) error {
	if l == nil || l.OriginalFrom == nil {
		return nil
	}
	ref := *l.OriginalFrom
	where := fmt.Sprintf("the index map in ConfigMap %q (annotation %s)", ref.ConfigMap, shards.AnnotationOriginalIndexesFrom)
	if cm == nil || cm.Name != ref.ConfigMap {
		return fmt.Errorf("job %q: %s was not given", job.Name, where)
	}
	text, err := mapText(cm, ref.Key)
	if err != nil {
		return fmt.Errorf("job %q: %s: %w", job.Name, where, err)
	}
	if h := MapHash(text); !strings.HasSuffix(ref.ConfigMap, "-"+h) {
		return fmt.Errorf("job %q: %s: its content (hash %s) is not the map the retry wrote, whose hash ends the ConfigMap's name: it was deleted and made again with other content", job.Name, where, h)
	}
	set, err := indexes.ParseRootIndexes(text)
	if err != nil {
		return fmt.Errorf("job %q: %s: %w", job.Name, where, err)
	}
	if set.IsEmpty() {
		return fmt.Errorf("job %q: %s is empty", job.Name, where)
	}
	if err := checkCompletions(job, where, set); err != nil {
		return err
	}
	l.Original = set
	return nil
}

// mapText is the interval text under key of cm.
func mapText(cm *corev1.ConfigMap, key string) (string, error) {
	switch key {
	case shards.KeyOriginalIndexes:
		s, ok := cm.Data[key]
		if !ok {
			return "", fmt.Errorf("it has no key %q in data", key)
		}
		return s, nil
	case shards.KeyOriginalIndexesGzip:
		b, ok := cm.BinaryData[key]
		if !ok {
			return "", fmt.Errorf("it has no key %q in binaryData", key)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return "", fmt.Errorf("key %q is not gzip: %w", key, err)
		}
		text, err := io.ReadAll(io.LimitReader(zr, maxIndexMapText+1))
		if err != nil {
			return "", fmt.Errorf("key %q: %w", key, err)
		}
		if len(text) > maxIndexMapText {
			return "", fmt.Errorf("key %q holds more than %d bytes uncompressed", key, maxIndexMapText)
		}
		return string(text), nil
	}
	return "", fmt.Errorf("unknown key %q", key)
}

// ReadResolved is Read, then Resolve with the ConfigMap get returns for the name the Job's
// annotation gives (get is called only for a map kept in a ConfigMap). When get fails, l is
// returned with the error: its root, parent and attempt are still good.
func ReadResolved(job *batchv1.Job, get func(name string) (*corev1.ConfigMap, error)) (l *Lineage, ok bool, err error) {
	l, ok, err = Read(job)
	if !ok || err != nil || l.OriginalFrom == nil {
		return l, ok, err
	}
	cm, err := get(l.OriginalFrom.ConfigMap)
	if err != nil {
		return l, true, fmt.Errorf("job %q keeps its index map in ConfigMap %q: %w", job.Name, l.OriginalFrom.ConfigMap, err)
	}
	return l, true, l.Resolve(job, cm)
}
