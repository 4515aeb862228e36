package shards

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// DefaultIDPrefix is the prefix of generated shard IDs: shard-0, shard-1, ...
const DefaultIDPrefix = "shard"

// ReadCases reads a plain list of case IDs: one per line, surrounding white space trimmed,
// blank lines skipped, a UTF-8 byte order mark at the start ignored. Duplicates are kept (Split
// removes them). name is used in messages. An invalid case ID is an error naming its line.
func ReadCases(name string, r io.Reader) ([]string, error) {
	// Bounded like a manifest: the cases of a list larger than MaxManifestBytes could not go
	// into one (and an endless input, such as `yes`, would be read until memory runs out).
	return readCases(name, r, MaxManifestBytes)
}

func readCases(name string, r io.Reader, limit int64) ([]string, error) {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	var cases []string
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if msg := ValidateCaseID(text); msg != "" {
			return nil, fmt.Errorf("case list %s: line %d: invalid case ID %q: %s", name, line, textwrap.Truncate(text, 80, "..."), msg)
		}
		cases = append(cases, text)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("case list %s: larger than %d MiB, more than a shard manifest can hold: is it the right input? (an endless stream is cut off here)", name, limit>>20)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("case list %s: line %d: longer than 1 MiB: is this a list of case IDs, one per line?", name, line+1)
		}
		return nil, fmt.Errorf("case list %s: %w", name, err)
	}
	return cases, nil
}

// SplitOptions says how to make a manifest from a list of case IDs.
type SplitOptions struct {
	Name     string
	Revision string
	Labels   map[string]string
	// Shards is the number of shards to make.
	Shards int
	// IDPrefix prefixes generated shard IDs (DefaultIDPrefix when empty).
	IDPrefix string
}

// SplitStats says what Split did with its input.
type SplitStats struct {
	// Input is the number of case IDs given, Unique the number after removing duplicates.
	Input, Unique int
	// Duplicates lists (sorted, at most 10) case IDs that were given more than once.
	Duplicates []string
	// Smallest and Largest are the sizes of the smallest and largest shard.
	Smallest, Largest int
}

// Split makes a manifest from a plain list of case IDs, deterministically.
//
// The case IDs are first de-duplicated and sorted by their bytes (no locale), so the result
// does not depend on the order they were given in. Then they are dealt out round-robin
// ("striped"): the case at sorted position p goes to shard p mod N, and every shard keeps its
// cases in sorted order. Shard k is called "<prefix>-<k>", with k zero-padded to the width of
// N-1 so that IDs sort in index order.
//
// Why striped rather than contiguous blocks or hashing: shard sizes differ by at most one case,
// as with blocks; but case IDs that sort together usually belong together (a subset, a source,
// a difficulty level: "gsm8k-...", "math-hard-..."), and blocks would put such a group, and its
// run time, into one shard, while striping spreads every group evenly over the shards, so the
// shards take similar time and each is a fair sample. Hashing also spreads, but its shard
// sizes vary by about the square root of the shard size and it gives no simple rule to check
// by hand. Adding or removing a case moves cases between shards under any of these schemes;
// that is what the manifest's revision is for.
func Split(cases []string, o SplitOptions) (*Manifest, SplitStats, error) {
	stats := SplitStats{Input: len(cases)}
	for i, c := range cases {
		if msg := ValidateCaseID(c); msg != "" {
			return nil, stats, fmt.Errorf("case %d: invalid case ID %q: %s", i+1, textwrap.Truncate(c, 80, "..."), msg)
		}
	}
	sorted := slices.Sorted(slices.Values(cases))
	for i := 1; i < len(sorted); i++ {
		// A case given more than once, at its first repetition.
		if c := sorted[i]; c == sorted[i-1] && (i == 1 || c != sorted[i-2]) && len(stats.Duplicates) < 10 {
			stats.Duplicates = append(stats.Duplicates, c)
		}
	}
	unique := slices.Compact(sorted)
	stats.Unique = len(unique)
	switch {
	case len(unique) == 0:
		return nil, stats, errors.New("no case IDs given: the case list is empty")
	case o.Shards < 1:
		return nil, stats, fmt.Errorf("the number of shards must be at least 1, not %d", o.Shards)
	case o.Shards > MaxShards:
		return nil, stats, fmt.Errorf("%d shards: at most %d are allowed", o.Shards, MaxShards)
	case o.Shards > len(unique):
		return nil, stats, fmt.Errorf("%d shards for %d distinct cases would leave shards empty: use at most %d shards", o.Shards, len(unique), len(unique))
	}
	prefix := cmp.Or(o.IDPrefix, DefaultIDPrefix)
	width := len(strconv.Itoa(o.Shards - 1))
	m := &Manifest{
		APIVersion: APIVersion,
		Kind:       Kind,
		Metadata:   Metadata{Name: o.Name, Labels: o.Labels},
		Revision:   Revision(o.Revision),
		Shards:     make([]Shard, o.Shards),
	}
	per := len(unique) / o.Shards
	for k := range m.Shards {
		m.Shards[k].ID = fmt.Sprintf("%s-%0*d", prefix, width, k)
		m.Shards[k].Cases = make([]string, 0, per+1)
	}
	for p, c := range unique {
		k := p % o.Shards
		m.Shards[k].Cases = append(m.Shards[k].Cases, c)
	}
	stats.Largest = len(m.Shards[0].Cases)
	stats.Smallest = len(m.Shards[o.Shards-1].Cases)
	if err := m.Validate(); err != nil {
		return nil, stats, err
	}
	return m, stats, nil
}

// CasesText returns cases as shard files hold them: one per line, each line ending in "\n".
func CasesText(cases []string) string {
	var b bytes.Buffer
	for _, c := range cases {
		b.WriteString(c)
		b.WriteByte('\n')
	}
	return b.String()
}
