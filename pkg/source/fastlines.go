package source

import (
	"bytes"
	"strconv"
)

// A fast path for Document.LineOf: the lines of the fields of a block-style YAML document (what
// people write and what kubectl -o yaml prints), found by scanning its lines instead of building
// a yaml.v3 node tree. It gives exactly the lines the yaml.v3 walk gives; anything it does not
// follow with certainty (flow collections spanning lines, anchors, aliases, tags, multi-line
// scalars, implicit nulls, tabs, complex keys) makes it give up, and the yaml.v3 walk answers.

type fastKind uint8

const (
	fastLeaf fastKind = iota // a scalar or a one-line flow collection
	fastMap
	fastSeq
)

type fastNode struct {
	kind  fastKind
	line  int // the node's line, as yaml.v3 reports it (1-based)
	keys  []string
	vals  []*fastNode
	kline []int // line of each key
	kquot []bool
	items []*fastNode
	// A leaf's text as written (a plain, quoted or flow scalar, or a block scalar indicator)
	// and, for a block scalar, its lines.
	text    string
	block   []string
	blockOK bool
	// dup says a mapping had a duplicated key (the strict YAML parser rejects it).
	dup bool
}

type fastToken struct {
	dash   bool   // "- " sequence entry marker
	key    bool   // "key:" (value in val)
	text   string // the key, or the scalar
	val    string // the value after "key:", trimmed ("" when nested or null)
	col    int
	line   int
	scalar bool // a bare scalar (sequence item content)
	// keyQuoted says the key was written in quotes (so it is a string, never a bool or int).
	keyQuoted bool
	// block holds the lines of a block scalar ("|", ">") value, as written (not yet dedented),
	// and blockOK says they were all plain lines the fast path can dedent.
	block   []string
	blockOK bool
}

type fastParser struct {
	toks []fastToken
	pos  int
	fail bool
}

// fastTree returns the fast-path tree of raw, or nil when the fast path cannot follow raw.
func fastTree(raw []byte) *fastNode {
	if !fastPrintable(raw) {
		return nil
	}
	toks, ok := fastTokenize(raw)
	if !ok || len(toks) == 0 || !toks[0].key || toks[0].col != 0 {
		return nil
	}
	p := &fastParser{toks: toks}
	root := p.mapping(0)
	if p.fail || p.pos != len(p.toks) {
		return nil
	}
	return root
}

// lineOf returns the line (1-based, in the document's text) of the field at segs, or of its
// nearest present parent, exactly as lineOfPath's yaml.v3 walk does.
func (n *fastNode) lineOf(segs []string) int {
	node, best := n, n.line
	for _, seg := range segs {
		next, l := node.child(seg)
		if next == nil {
			break
		}
		node, best = next, l
	}
	return best
}

// child returns the node under n named by seg and the line yaml.v3 gives it: for a mapping
// value that is a scalar, the scalar's line; for a nested block, the key's line; for a sequence
// item, the item's own line.
func (n *fastNode) child(seg string) (*fastNode, int) {
	switch n.kind {
	case fastMap:
		for i, k := range n.keys {
			if k == seg {
				v := n.vals[i]
				if v.kind == fastLeaf {
					return v, v.line
				}
				return v, n.kline[i]
			}
		}
	case fastSeq:
		i, err := strconv.Atoi(seg)
		if err == nil && i >= 0 && i < len(n.items) {
			return n.items[i], n.items[i].line
		}
	}
	return nil, 0
}

func (p *fastParser) peek() *fastToken {
	if p.pos < len(p.toks) {
		return &p.toks[p.pos]
	}
	return nil
}

// value parses the block starting at the next token, which must be indented at least minCol.
func (p *fastParser) value(minCol int) *fastNode {
	t := p.peek()
	switch {
	case t == nil || t.col < minCol:
		p.fail = true
	case t.dash:
		return p.sequence(t.col)
	case t.key:
		return p.mapping(t.col)
	case t.scalar:
		return p.leaf(t)
	default:
		p.fail = true
	}
	return &fastNode{}
}

func (p *fastParser) leaf(t *fastToken) *fastNode {
	p.pos++
	if !fastScalarOK(t.text) {
		p.fail = true
	}
	return &fastNode{kind: fastLeaf, line: t.line, text: t.text, block: t.block, blockOK: t.blockOK}
}

func (p *fastParser) mapping(col int) *fastNode {
	n := &fastNode{kind: fastMap}
	for !p.fail {
		t := p.peek()
		if t == nil || t.col < col || t.dash && t.col == col {
			break
		}
		if !t.key || t.col != col {
			p.fail = true
			break
		}
		if n.line == 0 {
			n.line = t.line
		}
		p.pos++
		var v *fastNode
		if t.val != "" {
			if !fastScalarOK(t.val) {
				p.fail = true
				break
			}
			v = &fastNode{kind: fastLeaf, line: t.line, text: t.val, block: t.block, blockOK: t.blockOK}
		} else {
			next := p.peek()
			switch {
			case next != nil && next.line != t.line && next.col > col && (next.key || next.dash):
				v = p.value(col + 1)
			case next != nil && next.line != t.line && next.col == col && next.dash:
				v = p.sequence(col)
			default:
				p.fail = true // an implicit null, or a scalar on the next line
				return n
			}
		}
		if containsKey(n.keys, t.text) {
			n.dup = true
		} else {
			n.keys = append(n.keys, t.text)
			n.vals = append(n.vals, v)
			n.kline = append(n.kline, t.line)
			n.kquot = append(n.kquot, t.keyQuoted)
		}
	}
	return n
}

func (p *fastParser) sequence(col int) *fastNode {
	n := &fastNode{kind: fastSeq}
	for !p.fail {
		t := p.peek()
		if t == nil || t.col < col || !t.dash || t.col != col {
			if t != nil && t.col > col {
				p.fail = true
			}
			break
		}
		if n.line == 0 {
			n.line = t.line
		}
		p.pos++
		next := p.peek()
		if next == nil || next.col <= col {
			p.fail = true // "-" with nothing: a null item
			break
		}
		if next.line != t.line && !next.key && !next.dash {
			p.fail = true
			break
		}
		n.items = append(n.items, p.value(col+1))
	}
	return n
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// fastScalarOK accepts the scalars whose node line is certain: plain, quoted or flow values
// complete on their line, and block scalar indicators.
func fastScalarOK(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '&', '*', '!', '%', '@', '`', '?':
		return false
	case '|', '>':
		return true
	case '"', '\'':
		end, ok := quotedEnd(v, 0)
		return ok && end == len(v)
	case '[', '{':
		return flowBalanced(v)
	}
	return true
}

// quotedEnd returns the index just after the quoted string starting at v[i].
func quotedEnd(v string, i int) (int, bool) {
	q := v[i]
	for j := i + 1; j < len(v); j++ {
		switch {
		case q == '"' && v[j] == '\\':
			j++
		case v[j] == q:
			if q == '\'' && j+1 < len(v) && v[j+1] == '\'' {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

func flowBalanced(v string) bool {
	depth := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"', '\'':
			end, ok := quotedEnd(v, i)
			if !ok {
				return false
			}
			i = end - 1
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth < 0 {
				return false
			}
		case '&', '*', '!':
			if i == 0 || v[i-1] == ' ' || v[i-1] == '[' || v[i-1] == '{' || v[i-1] == ',' {
				return false
			}
		}
	}
	return depth == 0
}

// fastTokenize splits raw into tokens, one or more per line ("- - key: v" gives three).
func fastTokenize(raw []byte) ([]fastToken, bool) {
	var toks []fastToken
	blockCol := -1 // inside a block scalar: lines indented more than this belong to it
	line := 0
	for len(raw) > 0 {
		line++
		var text []byte
		unterminated := false // the last line, with no line break after it
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			text, raw = raw[:i], raw[i+1:]
		} else {
			text, raw, unterminated = raw, nil, true
		}
		text = bytes.TrimRight(text, "\r")
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		rest := text[indent:]
		if blockCol >= 0 {
			if len(bytes.TrimSpace(rest)) == 0 || indent > blockCol {
				t := &toks[len(toks)-1]
				// A block scalar ending the input without a line break has none to clip or
				// keep; leave that to the YAML parser.
				if unterminated {
					t.blockOK = false
				}
				if len(rest) == 0 {
					t.block = append(t.block, "")
				} else {
					if bytes.IndexByte(text, '\t') >= 0 || len(bytes.TrimSpace(rest)) == 0 {
						t.blockOK = false
					}
					t.block = append(t.block, string(text))
				}
				continue
			}
			blockCol = -1
		}
		if len(rest) == 0 || rest[0] == '#' {
			continue
		}
		// A tab anywhere outside a block scalar (as indentation, as a separator around a value,
		// inside a plain scalar) has rules the fast path does not follow.
		if bytes.IndexByte(rest, '\t') >= 0 || bytes.HasPrefix(rest, []byte("---")) || bytes.HasPrefix(rest, []byte("...")) {
			return nil, false
		}
		content, ok := stripComment(string(rest))
		if !ok {
			return nil, false
		}
		col := indent
		for {
			if content == "-" || len(content) > 1 && content[0] == '-' && content[1] == ' ' {
				toks = append(toks, fastToken{dash: true, col: col, line: line})
				n := 1
				for n < len(content) && content[n] == ' ' {
					n++
				}
				if n >= len(content) {
					break
				}
				col += n
				content = content[n:]
				continue
			}
			key, val, isKey, ok := splitKey(content)
			if !ok {
				return nil, false
			}
			if isKey {
				toks = append(toks, fastToken{key: true, text: key, val: val, col: col, line: line, blockOK: true, keyQuoted: content[0] == '"' || content[0] == '\''})
				if val != "" && (val[0] == '|' || val[0] == '>') {
					blockCol = col
				}
			} else {
				toks = append(toks, fastToken{scalar: true, text: content, col: col, line: line, blockOK: true})
				if content[0] == '|' || content[0] == '>' {
					blockCol = col - 1
				}
			}
			break
		}
	}
	return toks, true
}

// stripComment removes a trailing " # comment" (outside quotes) and trailing spaces.
func stripComment(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			if i == 0 || s[i-1] == ' ' || s[i-1] == '[' || s[i-1] == '{' || s[i-1] == ',' || s[i-1] == ':' {
				end, ok := quotedEnd(s, i)
				if !ok {
					return "", false
				}
				i = end - 1
			}
		case '#':
			if i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
				s = s[:i]
				i = len(s)
			}
		}
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s, true
}

// splitKey splits "key: value" (or "key:"); isKey is false for a bare scalar.
func splitKey(s string) (key, val string, isKey, ok bool) {
	if s == "" {
		return "", "", false, false
	}
	switch s[0] {
	case '[', '{', '?', '&', '*', '!', '|', '>', '%', '@', '`':
		return "", "", false, true // a flow collection, block scalar or something to give up on later
	case '"', '\'':
		end, qok := quotedEnd(s, 0)
		if !qok {
			return "", "", false, false
		}
		rest := s[end:]
		if rest == ":" || len(rest) > 1 && rest[0] == ':' && rest[1] == ' ' {
			k := s[1 : end-1]
			if bytes.ContainsAny([]byte(k), `\'"`) {
				return "", "", false, false
			}
			return k, trimSpaces(rest[1:]), true, true
		}
		return "", "", false, true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ') {
			return trimSpaces(s[:i]), trimSpaces(s[i+1:]), true, true
		}
		if s[i] == ' ' && i+1 < len(s) && s[i+1] == '#' {
			break
		}
	}
	return "", "", false, true
}

func trimSpaces(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}
