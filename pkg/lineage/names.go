package lineage

import (
	"cmp"
	"strconv"
	"strings"
)

// RetryName is the name of attempt n of the lineage whose root Job is root: root-r<n>. A root
// whose own name ends in -r<k> (a Job named eval-r1 by hand, as a second revision is) gives
// eval-r<k+n>, never eval-r1-r1: suffixes do not stack.
func RetryName(root string, n int) string {
	base, k := splitRetrySuffix(root)
	return base + "-r" + strconv.Itoa(k+n)
}

// splitRetrySuffix splits name into the name before a final -r<k> (k a whole number from 1
// written without leading zeros) and k; a name without one is itself and 0.
func splitRetrySuffix(name string) (string, int) {
	i := strings.LastIndex(name, "-r")
	if i <= 0 {
		return name, 0
	}
	s := name[i+2:]
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || strconv.Itoa(k) != s {
		return name, 0
	}
	return name[:i], k
}

// NaturalCompare orders names as a person reads them: runs of digits by their value, so that
// eval-r1-4 comes before eval-r1-17 (plain retries name a Job per root index); the rest byte
// by byte. Equal values written differently (007, 7) fall back to the bytes.
func NaturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na, nb := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return cmp.Compare(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
