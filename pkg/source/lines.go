package source

import (
	"regexp"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// LineOf returns the line in File of the field at path (as Kubernetes field paths are
// written: "spec.template.spec.containers[0].image", "metadata.labels[app]"). When the field
// is absent it returns the line of its nearest present parent, and at worst the object's line.
func (d *Document) LineOf(path string) int {
	if d.Item >= 0 {
		prefix := "items[" + strconv.Itoa(d.Item) + "]"
		if path != "" {
			prefix += "."
		}
		path = prefix + path
	}
	return d.lineOfPath(path, d.Line)
}

func (d *Document) lineOfPath(path string, fallback int) int {
	if d.raw == nil {
		return fallback
	}
	if !d.treeRead {
		d.treeRead = true
		var n yamlv3.Node
		if err := yamlv3.Unmarshal(d.raw, &n); err == nil && len(n.Content) > 0 {
			d.tree = n.Content[0]
		}
	}
	if d.tree == nil {
		return fallback
	}
	node := d.tree
	best := node.Line
	for _, seg := range splitPath(path) {
		node = child(node, seg)
		if node == nil {
			break
		}
		best = node.Line
	}
	if best == 0 {
		return fallback
	}
	return best + d.rawLine - 1
}

// child returns the node under n named by seg: a mapping key, or a sequence index.
func child(n *yamlv3.Node, seg string) *yamlv3.Node {
	for n.Kind == yamlv3.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == seg {
				v := n.Content[i+1]
				if v.Kind == yamlv3.ScalarNode || v.Kind == yamlv3.AliasNode {
					// Point at the key's line: for a scalar it is the same line.
					return v
				}
				// For a nested block, the key line is more useful than the first child.
				return &yamlv3.Node{Kind: v.Kind, Content: v.Content, Line: n.Content[i].Line, Alias: v.Alias}
			}
		}
	case yamlv3.SequenceNode:
		i, err := strconv.Atoi(seg)
		if err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}

// pathSegment is one segment of a field path: a name between dots, or what a [...] holds (to
// the end of the path when the bracket is not closed, if anything follows it).
var pathSegment = regexp.MustCompile(`\[[^\]]*\]|\[[^\]]+|[^.\[]+`)

// splitPath splits "a.b[0].c[key.with.dots]" into ["a" "b" "0" "c" "key.with.dots"].
func splitPath(path string) []string {
	segs := pathSegment.FindAllString(path, -1)
	for i, s := range segs {
		if s[0] == '[' {
			segs[i] = strings.TrimSuffix(s[1:], "]")
		}
	}
	return segs
}

// The YAML parser's messages, read here only: the line a message names, the line a syntax
// error stopped at, and a key given twice in one mapping.
var (
	lineRE       = regexp.MustCompile(`line (\d+)`)
	syntaxLineRE = regexp.MustCompile(`yaml: line (\d+):`)
	dupKeyRE     = regexp.MustCompile(`line (\d+): key "((?:[^"\\]|\\.)*)" already set in map`)
)

// ErrorLine is the first line a YAML parser message names ("line N"); ok is false when it
// names none.
func ErrorLine(msg string) (line int, ok bool) { return lineIn(lineRE, msg) }

// SyntaxErrorLine is the line a YAML syntax error stopped at ("yaml: line N:"); ok is false
// when msg names none.
func SyntaxErrorLine(msg string) (line int, ok bool) { return lineIn(syntaxLineRE, msg) }

func lineIn(re *regexp.Regexp, msg string) (int, bool) {
	m := re.FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	line, err := strconv.Atoi(m[1])
	return line, err == nil
}

// DuplicateKeyMessage reads the parser's message for a key given twice in one mapping: the
// key and the line it is given again at; ok is false for any other message.
func DuplicateKeyMessage(msg string) (key string, again int, ok bool) {
	m := dupKeyRE.FindStringSubmatch(msg)
	if m == nil {
		return "", 0, false
	}
	again, _ = strconv.Atoi(m[1])
	key, err := strconv.Unquote(`"` + m[2] + `"`)
	if err != nil {
		key = m[2]
	}
	return key, again, true
}

// duplicateKey finds, in text, the key the parser's message msg names as given twice, and the
// line of its first occurrence in the same mapping (lines of text, 1-based).
func duplicateKey(text []byte, msg string) (key string, first, again int, ok bool) {
	key, again, ok = DuplicateKeyMessage(msg)
	if !ok {
		return "", 0, 0, false
	}
	var root yamlv3.Node
	if yamlv3.Unmarshal(text, &root) != nil {
		return "", 0, 0, false
	}
	var walk func(n *yamlv3.Node) int
	walk = func(n *yamlv3.Node) int {
		if n.Kind == yamlv3.MappingNode {
			firstLine := 0
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yamlv3.ScalarNode || k.Value != key {
					continue
				}
				if firstLine == 0 {
					firstLine = k.Line
				} else if k.Line == again {
					return firstLine
				}
			}
		}
		for _, c := range n.Content {
			if l := walk(c); l > 0 {
				return l
			}
		}
		return 0
	}
	if first = walk(&root); first == 0 {
		return "", 0, 0, false
	}
	return key, first, again, true
}
