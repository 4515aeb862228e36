package source

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A fast path for the YAML to JSON conversion of block-style documents: the fast-path tree of
// fastlines.go, with scalars resolved as go.yaml.in/yaml/v2 (which sigs.k8s.io/yaml, and so
// kubectl, uses) resolves them. It gives up (ok false) on anything it does not reproduce
// exactly: floats, timestamps, binary and unsigned numbers, YAML 1.1 special forms as keys,
// escapes in double-quoted strings, folded and indented block scalars, duplicate keys. The
// caller then uses yaml.YAMLToJSONStrict. TestFastJSONAgreesWithYAML and FuzzFastJSON compare
// the two.

// fastYAMLToJSON converts raw like yaml.YAMLToJSONStrict; it returns the value as
// json.Unmarshal would decode that JSON (numbers as float64) and the fast-path tree too. ok is
// false when the fast path cannot tell.
func fastYAMLToJSON(raw []byte) (js []byte, value any, tree *fastNode, ok bool) {
	tree = fastTree(raw)
	if tree == nil {
		return nil, nil, nil, false
	}
	v, ok := tree.value()
	if !ok {
		return nil, nil, tree, false
	}
	return appendJSON(make([]byte, 0, len(raw)), v), v, tree, true
}

// appendJSON writes v (maps, slices, strings, float64 integers, bools, nil) as encoding/json
// writes it, object keys sorted, without HTML escaping (which changes no value).
func appendJSON(b []byte, v any) []byte {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, t)
	case float64:
		return strconv.AppendFloat(b, t, 'f', -1, 64)
	case string:
		return appendJSONString(b, t)
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, x)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSON(b, t[k])
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("appendJSON: unexpected %T", v))
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s (valid UTF-8 without U+2028/2029, see fastPrintable) for JSON.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// fastPrintable reports whether raw is UTF-8 made only of the characters YAML allows and that
// are not line breaks other than \n and \r (yaml_parser's is_printable, without NEL and the
// Unicode line and paragraph separators).
func fastPrintable(raw []byte) bool {
	for len(raw) > 0 {
		c := raw[0]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return false
			}
			if c == '\r' && (len(raw) < 2 || raw[1] != '\n') {
				return false // a lone CR is a line break to YAML
			}
			raw = raw[1:]
			continue
		}
		r, size := utf8.DecodeRune(raw)
		switch {
		case r == utf8.RuneError && size <= 1:
			return false
		case r == 0x85, r == 0x2028, r == 0x2029, r == 0xFEFF:
			return false
		case r < 0xA0, r > 0xD7FF && r < 0xE000, r > 0xFFFD && r < 0x10000:
			return false
		}
		raw = raw[size:]
	}
	return true
}

func (n *fastNode) value() (any, bool) {
	switch n.kind {
	case fastMap:
		if n.dup {
			return nil, false
		}
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			if !n.kquot[i] {
				var ok bool
				if k, ok = plainKey(k); !ok {
					return nil, false
				}
			}
			if _, dup := m[k]; dup {
				return nil, false
			}
			v, ok := n.vals[i].value()
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		return m, true
	case fastSeq:
		out := make([]any, len(n.items))
		for i, it := range n.items {
			v, ok := it.value()
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	}
	return leafValue(n.text, n.block, n.blockOK)
}

// plainKey returns the JSON key of an unquoted mapping key, as sigs.k8s.io/yaml converts the
// resolved key (bool and int keys become their decimal or true/false text).
func plainKey(k string) (string, bool) {
	if k == "" || strings.ContainsAny(k, ":#\t") || strings.ContainsAny(k[:1], ",[]{}&*!|>'\"%@`") {
		return "", false
	}
	if (k[0] == '-' || k[0] == '?') && (len(k) == 1 || k[1] == ' ') {
		return "", false
	}
	v, ok := resolvePlain(k)
	if !ok {
		return "", false
	}
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		return strconv.FormatInt(int64(t), 10), true
	}
	return "", false
}

func leafValue(text string, block []string, blockOK bool) (any, bool) {
	if text == "" {
		return nil, false
	}
	switch text[0] {
	case '|':
		if !blockOK {
			return nil, false
		}
		return literalBlock(text, block)
	case '>':
		return nil, false
	case '"':
		inner := text[1 : len(text)-1]
		if strings.ContainsAny(inner, "\\\"") {
			return nil, false
		}
		return inner, true
	case '\'':
		return strings.ReplaceAll(text[1:len(text)-1], "''", "'"), true
	case '[', '{':
		f := &flowParser{s: text}
		v, ok := f.value()
		if !ok || f.skipSpaces() < len(f.s) {
			return nil, false
		}
		return v, true
	}
	if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") || strings.HasPrefix(text, "- ") || text == "-" {
		return nil, false
	}
	switch text[0] {
	case ':', ',', ']', '}', '#':
		return nil, false
	}
	return resolvePlain(text)
}

// literalBlock returns the content of a "|", "|-" or "|+" block scalar.
func literalBlock(indicator string, lines []string) (any, bool) {
	chomp := byte(0)
	switch indicator {
	case "|":
	case "|-":
		chomp = '-'
	case "|+":
		chomp = '+'
	default:
		return nil, false
	}
	indent := -1
	for _, l := range lines {
		if l != "" {
			indent = len(l) - len(strings.TrimLeft(l, " "))
			break
		}
	}
	var b strings.Builder
	trailing := 0
	for _, l := range lines {
		if l == "" {
			trailing++
			continue
		}
		if indent < 0 || len(l)-len(strings.TrimLeft(l, " ")) < indent {
			return nil, false
		}
		for ; trailing > 0; trailing-- {
			b.WriteByte('\n')
		}
		b.WriteString(l[indent:])
		b.WriteByte('\n')
	}
	if indent < 0 {
		// Only empty lines: the value is "" (clip, strip) or the newlines (keep).
		if chomp == '+' {
			return strings.Repeat("\n", trailing), true
		}
		return "", true
	}
	s := b.String()
	switch chomp {
	case '-':
		s = strings.TrimRight(s, "\n")
	case '+':
		s += strings.Repeat("\n", trailing)
	}
	return s, true
}

var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolvePlain resolves a plain scalar as go.yaml.in/yaml/v2's resolve does, for the results
// that convert to JSON unambiguously: strings, bools, null and int64. ok is false otherwise.
func resolvePlain(in string) (any, bool) {
	switch in {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, true
	case "", "~", "null", "Null", "NULL":
		return nil, true
	case "<<":
		return nil, false
	}
	if in == "" {
		return nil, true
	}
	switch c := in[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(in, 64); err == nil {
			return nil, false
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if len(in) >= 5 && in[4] == '-' && allDigits(in[:4]) {
			return nil, false // a timestamp, maybe
		}
		plain := strings.ReplaceAll(in, "_", "")
		if v, err := strconv.ParseInt(plain, 0, 64); err == nil {
			if v > 1<<53 || v < -(1<<53) {
				return nil, false
			}
			return float64(v), true
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return nil, false
		}
		if yamlStyleFloat.MatchString(plain) {
			return nil, false
		}
		if strings.HasPrefix(plain, "0b") || strings.HasPrefix(plain, "-0b") {
			return nil, false
		}
	}
	return in, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// flowParser parses a one-line flow collection.
type flowParser struct {
	s string
	i int
}

func (f *flowParser) skipSpaces() int {
	for f.i < len(f.s) && f.s[f.i] == ' ' {
		f.i++
	}
	return f.i
}

func (f *flowParser) value() (any, bool) {
	f.skipSpaces()
	if f.i >= len(f.s) {
		return nil, false
	}
	switch f.s[f.i] {
	case '[':
		return f.seq()
	case '{':
		return f.mapping()
	case '"', '\'':
		return f.quoted()
	}
	return f.plain()
}

func (f *flowParser) seq() (any, bool) {
	f.i++ // [
	out := []any{}
	f.skipSpaces()
	if f.i < len(f.s) && f.s[f.i] == ']' {
		f.i++
		return out, true
	}
	for {
		v, ok := f.value()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		f.skipSpaces()
		if f.i >= len(f.s) {
			return nil, false
		}
		switch f.s[f.i] {
		case ',':
			f.i++
			f.skipSpaces()
			if f.i < len(f.s) && f.s[f.i] == ']' {
				return nil, false // a trailing comma
			}
		case ']':
			f.i++
			return out, true
		default:
			return nil, false
		}
	}
}

func (f *flowParser) mapping() (any, bool) {
	f.i++ // {
	out := map[string]any{}
	f.skipSpaces()
	if f.i < len(f.s) && f.s[f.i] == '}' {
		f.i++
		return out, true
	}
	for {
		f.skipSpaces()
		if f.i >= len(f.s) {
			return nil, false
		}
		var key string
		quoted := f.s[f.i] == '"' || f.s[f.i] == '\''
		k, ok := f.value()
		if !ok {
			return nil, false
		}
		switch t := k.(type) {
		case string:
			key = t
		default:
			return nil, false // a collection or a bool/int/null key: give up
		}
		if !quoted {
			if key, ok = plainKey(key); !ok {
				return nil, false
			}
		}
		f.skipSpaces()
		if f.i >= len(f.s) || f.s[f.i] != ':' {
			return nil, false
		}
		f.i++
		if !quoted && (f.i >= len(f.s) || f.s[f.i] != ' ') {
			return nil, false
		}
		v, ok := f.value()
		if !ok {
			return nil, false
		}
		if _, dup := out[key]; dup {
			return nil, false
		}
		out[key] = v
		f.skipSpaces()
		if f.i >= len(f.s) {
			return nil, false
		}
		switch f.s[f.i] {
		case ',':
			f.i++
			f.skipSpaces()
			if f.i < len(f.s) && f.s[f.i] == '}' {
				return nil, false
			}
		case '}':
			f.i++
			return out, true
		default:
			return nil, false
		}
	}
}

func (f *flowParser) quoted() (any, bool) {
	end, ok := quotedEnd(f.s, f.i)
	if !ok {
		return nil, false
	}
	v, ok := leafValue(f.s[f.i:end], nil, false)
	f.i = end
	return v, ok
}

func (f *flowParser) plain() (any, bool) {
	start := f.i
	for f.i < len(f.s) {
		c := f.s[f.i]
		if c == ',' || c == '[' || c == ']' || c == '{' || c == '}' || c == ':' || c == '#' {
			break
		}
		f.i++
	}
	text := strings.TrimRight(f.s[start:f.i], " ")
	if text == "" {
		return nil, false
	}
	for i := 0; i < len(text); i++ {
		// Plain scalars in flow context: only characters whose meaning is plain.
		c := text[i]
		plainChar := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" ._/-=$()+~^;<", c) >= 0
		if !plainChar {
			return nil, false
		}
	}
	switch text[0] {
	case '&', '*', '!', '|', '>', '%', '@', '`', '?', '-':
		if text[0] != '-' || len(text) == 1 || text[1] == ' ' {
			return nil, false
		}
	}
	return resolvePlain(text)
}
