package lineage

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// mapConfigMap is the ConfigMap a retry makes of m.
func mapConfigMap(m *IndexMap) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: m.Ref.ConfigMap}, Data: m.Data, BinaryData: m.BinaryData}
}

// stepSet is {0, step, 2*step, ...} with n elements: no two adjacent, so one interval each.
func stepSet(n, step int) indexes.Set {
	var b indexes.Builder
	for i := range n {
		b.Add(i * step)
	}
	return b.Set()
}

func inConfigMap(t *testing.T, set indexes.Set) (*Lineage, *IndexMap) {
	t.Helper()
	m, err := NewIndexMap("eval", set)
	if err != nil {
		t.Fatal(err)
	}
	l := &Lineage{RootJob: "eval", RootJobUID: "u0", ParentJob: "eval", ParentJobUID: "u0", Attempt: 1, Original: set, OriginalFrom: &m.Ref}
	return l, m
}

func TestIndexMapRoundTrip(t *testing.T) {
	set := stepSet(1000, 3)
	l, m := inConfigMap(t, set)
	ann := l.Annotations()
	if _, ok := ann[shards.AnnotationOriginalIndexes]; ok {
		t.Error("original-indexes written with the map in a ConfigMap")
	}
	if want := "eval-index-map-" + MapHash(set.String()) + "/" + shards.KeyOriginalIndexes; ann[shards.AnnotationOriginalIndexesFrom] != want {
		t.Errorf("original-indexes-from = %q, want %q", ann[shards.AnnotationOriginalIndexesFrom], want)
	}
	job := retryJob(ann, 1000)
	got, ok, err := Read(job)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if got.Resolved() || got.OriginalFrom == nil || *got.OriginalFrom != m.Ref || got.Attempt != 1 || got.RootJob != "eval" {
		t.Fatalf("before Resolve: %+v", got)
	}
	if _, ok := got.RootIndex(0); ok {
		t.Error("RootIndex answers before the map was read")
	}
	if _, err := Compose(got, 1000, indexes.Of(0)); err == nil || !strings.Contains(err.Error(), "was not read") {
		t.Errorf("Compose through an unread map: %v", err)
	}
	if err := got.Resolve(job, mapConfigMap(m)); err != nil {
		t.Fatal(err)
	}
	if !got.Original.Equal(set) || !got.Resolved() {
		t.Error("the map read back differs")
	}
	if r, ok := got.RootIndex(999); !ok || r != 2997 {
		t.Errorf("RootIndex(999) = %d %v", r, ok)
	}
	// ReadResolved calls the getter with the name the annotation gives.
	asked := ""
	got, _, err = ReadResolved(job, func(name string) (*corev1.ConfigMap, error) { asked = name; return mapConfigMap(m), nil })
	if err != nil || asked != m.Ref.ConfigMap || !got.Original.Equal(set) {
		t.Errorf("ReadResolved: asked %q, %v", asked, err)
	}
	// A map in the annotation never calls the getter.
	plain := &Lineage{RootJob: "eval", RootJobUID: "u0", ParentJob: "eval", ParentJobUID: "u0", Attempt: 1, Original: indexes.Of(2, 4)}
	if _, _, err := ReadResolved(retryJob(plain.Annotations(), 2), func(string) (*corev1.ConfigMap, error) { t.Error("getter called"); return nil, nil }); err != nil {
		t.Error(err)
	}
}

// TestIndexMapCompressesAboveLimit: at the real limit (768 KiB), text up to it stays readable in
// data, one index more is gzip in binaryData, and both read back.
func TestIndexMapCompressesAboveLimit(t *testing.T) {
	// {0, 2, 4, ...}: count the text's bytes to find the longest that fits.
	n, size := 0, -1 // no comma before the first
	for size+1+len(strconv.Itoa(2*n)) <= MaxIndexMapBytes {
		size += 1 + len(strconv.Itoa(2*n))
		n++
	}
	under, over := stepSet(n, 2), stepSet(n+1, 2)
	if u, o := len(under.String()), len(over.String()); u > MaxIndexMapBytes || o <= MaxIndexMapBytes {
		t.Fatalf("test sets of %d and %d bytes", u, o)
	}
	for _, tc := range []struct {
		set indexes.Set
		key string
	}{{under, shards.KeyOriginalIndexes}, {over, shards.KeyOriginalIndexesGzip}} {
		l, m := inConfigMap(t, tc.set)
		if m.Ref.Key != tc.key {
			t.Errorf("%d bytes: key %q, want %q", len(tc.set.String()), m.Ref.Key, tc.key)
		}
		size := len(m.Data[m.Ref.Key]) + len(m.BinaryData[m.Ref.Key])
		if size > MaxIndexMapBytes {
			t.Errorf("%d bytes: the ConfigMap holds %d", len(tc.set.String()), size)
		}
		job := retryJob(l.Annotations(), int32(tc.set.Len()))
		got, _, err := ReadResolved(job, func(string) (*corev1.ConfigMap, error) { return mapConfigMap(m), nil })
		if err != nil || !got.Original.Equal(tc.set) {
			t.Errorf("%d bytes: read back: %v", len(tc.set.String()), err)
		}
	}
}

func TestIndexMapTooLargeEvenCompressed(t *testing.T) {
	defer func(v int) { indexMapLimit = v }(indexMapLimit)
	indexMapLimit = 64
	// Scattered without a pattern: compresses to well over 64 bytes.
	var b indexes.Builder
	x := 7
	for range 200 {
		x = (x*7919 + 13) % 1000003
		b.Add(x)
	}
	if _, err := NewIndexMap("eval", b.Set()); err == nil || !strings.Contains(err.Error(), "compressed") {
		t.Errorf("got %v", err)
	}
}

func TestResolveRejects(t *testing.T) {
	set := stepSet(10, 2)
	l, m := inConfigMap(t, set)
	gz := func(s string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write([]byte(s))
		_ = zw.Close()
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name        string
		cm          *corev1.ConfigMap
		key         string
		completions int32
		want        string
	}{
		{"not given", nil, "", 10, "was not given"},
		{"another ConfigMap", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, "", 10, "was not given"},
		{"no key", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: m.Ref.ConfigMap}}, "", 10, "has no key"},
		{"other content", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: m.Ref.ConfigMap}, Data: map[string]string{shards.KeyOriginalIndexes: "0-9"}}, "", 10, "not the map the retry wrote"},
		{"wrong size", mapConfigMap(m), "", 11, "10 indexes but the Job has 11"},
		{"not gzip", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: m.Ref.ConfigMap}, BinaryData: map[string][]byte{shards.KeyOriginalIndexesGzip: []byte("plain")}}, shards.KeyOriginalIndexesGzip, 10, "not gzip"},
		{"gzip of other content", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: m.Ref.ConfigMap}, BinaryData: map[string][]byte{shards.KeyOriginalIndexesGzip: gz("1-10")}}, shards.KeyOriginalIndexesGzip, 10, "not the map the retry wrote"},
	} {
		ll := *l
		ref := *l.OriginalFrom
		if tc.key != "" {
			ref.Key = tc.key
		}
		ll.OriginalFrom = &ref
		job := retryJob(ll.Annotations(), tc.completions)
		got, ok, err := Read(job)
		if !ok || err != nil {
			t.Fatalf("%s: read %v %v", tc.name, ok, err)
		}
		if err := got.Resolve(job, tc.cm); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if got.Resolved() {
			t.Errorf("%s: resolved after an error", tc.name)
		}
	}
	// The annotation's own errors.
	for _, tc := range []struct{ value, want string }{
		{"no-slash", "not <configmap>/<key>"},
		{"Bad_Name/original-indexes", "ConfigMap name"},
		{"eval-index-map-x/other-key", "neither"},
	} {
		a := l.Annotations()
		a[shards.AnnotationOriginalIndexesFrom] = tc.value
		if _, ok, err := Read(retryJob(a, 10)); !ok || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.value, err, tc.want)
		}
	}
	both := l.Annotations()
	both[shards.AnnotationOriginalIndexes] = set.String()
	if _, _, err := Read(retryJob(both, 10)); err == nil || !strings.Contains(err.Error(), "both annotations") {
		t.Errorf("both keys: %v", err)
	}
}
