// Package shards defines the shard manifest: the versioned, immutable mapping from completion
// index to the list of work (case IDs) that index runs. It parses manifests strictly, writes
// them canonically, hashes them, and splits a plain list of case IDs into shards
// deterministically. It does not talk to a cluster.
package shards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

// The manifest's type.
const (
	APIVersion = contract.APIVersion
	Kind       = contract.ShardManifest
)

// Limits.
const (
	// MaxShards is the most shards a manifest may have. Every Job made from a manifest uses
	// backoffLimitPerIndex, and above 10^5 completions the API server then demands
	// maxFailedIndexes and parallelism of at most 10^4 and warns that it may not be able to
	// track failed indexes (Job validation of the release in pkg/version). In practice the 1 MiB ConfigMap limit
	// is reached first; pkg/scaffold checks that.
	MaxShards = 100000
	// MaxShardIDLength is the longest shard ID: IDs are label values.
	MaxShardIDLength = 63
	// MaxCaseIDLength is the longest case ID, in bytes.
	MaxCaseIDLength = 1024
	// maxProblems caps how many problems one error lists.
	maxProblems = 20
)

// Manifest is a shard manifest: shard i is what completion index i runs.
type Manifest struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	// Revision identifies this version of the manifest (for example a dataset version or a
	// counter). It is recorded on the Job as a label value, so it follows label-value syntax.
	Revision Revision `json:"revision"`
	// Shards in completion-index order.
	Shards []Shard `json:"shards"`
}

// Metadata names a manifest.
type Metadata struct {
	// Name is a DNS-1123 label; it names the ConfigMap made from the manifest.
	Name string `json:"name"`
	// Labels are copied onto the Job and the ConfigMap (for example candidate or dataset
	// version). Keys under indexed.kubectl.io/ are reserved.
	Labels map[string]string `json:"labels,omitempty"`
}

// Shard is the work of one completion index.
type Shard struct {
	ID    string   `json:"id"`
	Cases []string `json:"cases"`
}

// Revision is a manifest revision. In files it may be written as a string or an integer
// (`revision: 3`); it is always written back as a string.
type Revision string

// UnmarshalJSON accepts a JSON string or an integer.
func (r *Revision) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*r = Revision(s)
		return nil
	}
	if _, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*r = Revision(string(b))
		return nil
	}
	return fmt.Errorf("revision must be a string or an integer, not %s", string(b))
}

// NumCases returns the number of cases over all shards.
func (m *Manifest) NumCases() int {
	n := 0
	for _, s := range m.Shards {
		n += len(s.Cases)
	}
	return n
}

// IDs returns the shard IDs in completion-index order.
func (m *Manifest) IDs() []string {
	ids := make([]string, len(m.Shards))
	for i, s := range m.Shards {
		ids[i] = s.ID
	}
	return ids
}

// Canonical returns the manifest's canonical serialisation: compact JSON with fields in a fixed
// order (apiVersion, kind, metadata{name, labels sorted by key}, revision, shards[{id, cases}]),
// shards and cases in the order the manifest gives them, no HTML escaping, and one trailing
// newline. Two manifests that mean the same thing have the same canonical bytes however they
// were written (YAML or JSON, key order, quoting, comments).
func (m *Manifest) Canonical() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	c := *m
	c.APIVersion, c.Kind = APIVersion, Kind // empty labels are left out (omitempty)
	// Encoding a struct of strings, maps of strings and slices cannot fail.
	_ = enc.Encode(&c)
	return buf.Bytes()
}

// Hash returns "sha256:" and the hex SHA-256 of the canonical serialisation.
func (m *Manifest) Hash() string {
	sum := sha256.Sum256(m.Canonical())
	return FormatHash(sum[:])
}

// FormatHash is the one form of the plugin's SHA-256 digests (the manifest hash, a shard's
// digest in a receipt): "sha256:" and the lowercase hex of sum.
func FormatHash(sum []byte) string { return "sha256:" + hex.EncodeToString(sum) }

// ValidHash reports whether h has FormatHash's form: "sha256:" and 64 lowercase hex digits.
func ValidHash(h string) bool {
	hexPart, ok := strings.CutPrefix(h, "sha256:")
	return ok && len(hexPart) == 64 && strings.Trim(hexPart, "0123456789abcdef") == ""
}

// ShortHash returns the first n hex digits of the hash (n ≤ 64).
func (m *Manifest) ShortHash(n int) string {
	h := strings.TrimPrefix(m.Hash(), "sha256:")
	return h[:min(n, len(h))]
}

// Problem is one thing wrong with a manifest. Path is a field path such as
// "shards[3].cases[0]"; Line is its line in the file when known (0 otherwise).
type Problem struct {
	Path    string
	Line    int
	Message string
}

func (p Problem) String() string {
	s := p.Message
	if p.Path != "" {
		s = p.Path + ": " + s
	}
	if p.Line > 0 {
		s = fmt.Sprintf("line %d: %s", p.Line, s)
	}
	return s
}

// Error lists every problem found in a manifest (up to a cap).
type Error struct {
	// File is where the manifest came from ("-" for stdin), or "" when built in memory.
	File     string
	Problems []Problem
	// More counts problems found beyond the listed ones.
	More int
}

func (e *Error) Error() string {
	name := "shard manifest"
	if e.File != "" {
		name = fmt.Sprintf("shard manifest %s", e.File)
	}
	if len(e.Problems) == 1 && e.More == 0 {
		return fmt.Sprintf("%s: %s", name, e.Problems[0])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems:", name, len(e.Problems)+e.More)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
	}
	return b.String()
}

// problems collects problems up to maxProblems.
type problems struct {
	list []Problem
	more int
	line func(path string) int
}

func (ps *problems) add(path, format string, a ...any) {
	if len(ps.list) >= maxProblems {
		ps.more++
		return
	}
	p := Problem{Path: path, Message: fmt.Sprintf(format, a...)}
	if ps.line != nil {
		p.Line = ps.line(path)
	}
	ps.list = append(ps.list, p)
}

// Validate checks a manifest built in memory. Parse runs the same checks with line numbers.
func (m *Manifest) Validate() error {
	ps := &problems{}
	m.validate(ps)
	if len(ps.list) == 0 {
		return nil
	}
	return &Error{Problems: ps.list, More: ps.more}
}

func (m *Manifest) validate(ps *problems) {
	if m.APIVersion != APIVersion {
		ps.add("apiVersion", "must be %q, not %q", APIVersion, m.APIVersion)
	}
	if m.Kind != Kind {
		ps.add("kind", "must be %q, not %q", Kind, m.Kind)
	}
	if m.Metadata.Name == "" {
		ps.add("metadata.name", "required: name the manifest (a DNS-1123 label, such as \"eval-gsm8k\")")
	} else if msgs := validation.IsDNS1123Label(m.Metadata.Name); len(msgs) > 0 {
		ps.add("metadata.name", "invalid name %q: %s", m.Metadata.Name, strings.Join(msgs, "; "))
	}
	for _, k := range slices.Sorted(maps.Keys(m.Metadata.Labels)) {
		path := fmt.Sprintf("metadata.labels[%s]", k)
		if msgs := content.IsLabelKey(k); len(msgs) > 0 {
			ps.add(path, "invalid label key %q: %s", k, strings.Join(msgs, "; "))
		} else if strings.HasPrefix(k, Prefix) {
			ps.add(path, "label keys under %q are reserved for kubectl indexed", Prefix)
		}
		if msgs := content.IsLabelValue(m.Metadata.Labels[k]); len(msgs) > 0 {
			ps.add(path, "invalid label value %q: %s", m.Metadata.Labels[k], strings.Join(msgs, "; "))
		}
	}
	if m.Revision == "" {
		ps.add("revision", "required: give the manifest a revision (such as \"1\" or \"2024-06-01\")")
	} else if msgs := content.IsLabelValue(string(m.Revision)); len(msgs) > 0 {
		ps.add("revision", "invalid revision %q: %s", m.Revision, strings.Join(msgs, "; "))
	}
	switch {
	case len(m.Shards) == 0:
		ps.add("shards", "no shards: a manifest needs at least one shard")
		return
	case len(m.Shards) > MaxShards:
		ps.add("shards", "%d shards: at most %d are allowed (above 10^5 completions an Indexed Job with backoffLimitPerIndex is limited to 10^4 parallelism and maxFailedIndexes, and failed indexes may not be tracked)", len(m.Shards), MaxShards)
		return
	}
	type where struct{ shard, pos int }
	shardOf := make(map[string]int, len(m.Shards))
	caseAt := make(map[string]where, m.NumCases())
	for i, s := range m.Shards {
		sp := fmt.Sprintf("shards[%d]", i)
		name := sp
		if s.ID != "" {
			name = fmt.Sprintf("%s (id %q)", sp, s.ID)
		}
		if s.ID == "" {
			ps.add(sp+".id", "required: every shard needs an ID")
		} else if msg := ValidateShardID(s.ID); msg != "" {
			ps.add(sp+".id", "invalid shard ID %q: %s", s.ID, msg)
		} else if j, dup := shardOf[s.ID]; dup {
			ps.add(sp+".id", "duplicate shard ID %q: already used by shards[%d]", s.ID, j)
		} else {
			shardOf[s.ID] = i
		}
		if len(s.Cases) == 0 {
			ps.add(sp+".cases", "%s is empty: every shard needs at least one case", name)
			continue
		}
		for k, c := range s.Cases {
			cp := fmt.Sprintf("%s.cases[%d]", sp, k)
			if msg := ValidateCaseID(c); msg != "" {
				ps.add(cp, "%s: invalid case ID %q: %s", name, c, msg)
				continue
			}
			if w, dup := caseAt[c]; dup {
				if w.shard == i {
					ps.add(cp, "%s: case %q is listed twice (also cases[%d])", name, c, w.pos)
				} else {
					ps.add(cp, "case %q is in two shards: %s and shards[%d] (id %q)", c, name, w.shard, m.Shards[w.shard].ID)
				}
				continue
			}
			caseAt[c] = where{i, k}
		}
	}
}

// ValidateShardID returns why id is not a valid shard ID, or "". Shard IDs are label values
// (1–63 characters: letters, digits, '-', '_', '.', starting and ending with a letter or
// digit), so that they can be used in labels, selectors, file names and ConfigMap keys.
func ValidateShardID(id string) string {
	if id == "" {
		return "must not be empty"
	}
	if msgs := content.IsLabelValue(id); len(msgs) > 0 {
		return strings.Join(msgs, "; ")
	}
	return ""
}

// ValidateCaseID returns why id is not a valid case ID, or "". A case ID is non-empty UTF-8
// text of at most MaxCaseIDLength bytes without control characters (so no line breaks or
// tabs, and no bidirectional controls) and without leading or trailing white space: shard files hold one case per line.
func ValidateCaseID(id string) string {
	switch {
	case id == "":
		return "must not be empty"
	case len(id) > MaxCaseIDLength:
		return fmt.Sprintf("longer than %d bytes", MaxCaseIDLength)
	case !utf8.ValidString(id):
		return "not valid UTF-8"
	}
	for _, r := range id {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			return fmt.Sprintf("contains the control character %U", r)
		}
		// Bidirectional controls (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C)
		// reorder what a terminal or a report shows: "a\u202Egnp.exe" reads as "aexe.png".
		if unicode.Is(unicode.Bidi_Control, r) {
			return fmt.Sprintf("contains the bidirectional control character %U", r)
		}
	}
	first, _ := utf8.DecodeRuneInString(id)
	last, _ := utf8.DecodeLastRuneInString(id)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return "has leading or trailing white space"
	}
	return ""
}
