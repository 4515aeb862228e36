package jobdiff

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// segment is one step of a field path: a map key, or (item) a list item picked by its name.
type segment struct {
	key  string
	item bool
}

type fieldPath []segment

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func (p fieldPath) child(key string) fieldPath {
	return append(p[:len(p):len(p)], segment{key: key})
}

func (p fieldPath) item(name string) fieldPath {
	return append(p[:len(p):len(p)], segment{key: name, item: true})
}

// String renders the path as documented on Difference.Path.
func (p fieldPath) String() string { return p.render(false) }

// pattern renders the path with list items as "[]" and every key dotted, for matching
// against the rows of the mutability table.
func (p fieldPath) pattern() string { return p.render(true) }

func (p fieldPath) render(pattern bool) string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case !s.item && (pattern || plainKey.MatchString(s.key)):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		case !s.item:
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		case pattern:
			b.WriteString("[]")
		default:
			b.WriteString("[name=" + s.key + "]")
		}
	}
	return b.String()
}

// hasPrefix reports whether the path's pattern is prefix or lies under it.
func (p fieldPath) hasPrefix(prefix string) bool {
	pat := p.pattern()
	if !strings.HasPrefix(pat, prefix) {
		return false
	}
	rest := pat[len(prefix):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// inList reports whether the path goes through a list item.
func (p fieldPath) inList() bool {
	return slices.ContainsFunc(p, func(s segment) bool { return s.item })
}

// jsonPointerToken escapes a key for a JSON pointer (RFC 6901).
func jsonPointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
