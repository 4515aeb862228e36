package shards

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// YAML returns the manifest as YAML with the fields in the canonical order (apiVersion, kind,
// metadata, revision, shards; id before cases). Strings are written plain only when no YAML
// parser (YAML 1.1 or 1.2) can read them as anything but the same string; otherwise they are
// double-quoted. The output is a function of the manifest alone, so the same manifest always
// gives the same bytes, and parsing it gives the manifest back. m is valid (split's output, or
// a manifest Read or Parse accepted): it has shards, and every shard has cases.
func (m *Manifest) YAML() []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: " + APIVersion + "\n")
	b.WriteString("kind: " + Kind + "\n")
	b.WriteString("metadata:\n")
	b.WriteString("  name: " + yamlString(m.Metadata.Name) + "\n")
	if len(m.Metadata.Labels) > 0 {
		b.WriteString("  labels:\n")
		for _, k := range slices.Sorted(maps.Keys(m.Metadata.Labels)) {
			b.WriteString("    " + yamlString(k) + ": " + yamlString(m.Metadata.Labels[k]) + "\n")
		}
	}
	b.WriteString("revision: " + yamlString(string(m.Revision)) + "\n")
	b.WriteString("shards:\n")
	for _, s := range m.Shards {
		b.WriteString("- id: " + yamlString(s.ID) + "\n")
		b.WriteString("  cases:\n")
		for _, c := range s.Cases {
			b.WriteString("  - " + yamlString(c) + "\n")
		}
	}
	return b.Bytes()
}

// JSON returns the manifest as indented JSON: the canonical form, indented (fields in
// canonical order, trailing newline).
func (m *Manifest) JSON() []byte {
	var buf bytes.Buffer
	_ = json.Indent(&buf, m.Canonical(), "", "  ") // canonical JSON is valid
	return buf.Bytes()
}

// yamlReserved are plain scalars that YAML 1.1 or 1.2 resolves to something other than a
// string (compared in lower case).
var yamlReserved = map[string]bool{
	"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true,
	"true": true, "false": true, "null": true,
}

// yamlString writes s plain when it starts with a letter, has only letters, digits, '-', '_',
// '.' and '/' after that, and is not a reserved word; otherwise as a JSON string, which is
// also a valid YAML double-quoted scalar with the same value.
func yamlString(s string) string {
	if plainSafe(s) {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

func plainSafe(s string) bool {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	return s != "" && !yamlReserved[strings.ToLower(s)] && strings.IndexByte(letters, s[0]) >= 0 &&
		strings.Trim(s[1:], letters+"0123456789-_./") == ""
}
