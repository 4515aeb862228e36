package status

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// streamIndexesFrom is the number of listed indexes from which -o json writes indexes[] one
// entry at a time.
const streamIndexesFrom = 1000

// writeJSON writes the report as output.PrintStructured does for -o json (two-space indent,
// no HTML escaping), byte for byte, but with indexes[] encoded one entry at a time: encoding
// the whole report at once holds the compact and the indented text of every index (about
// 100 MB at 100,000 indexes) on top of the report.
func writeJSON(w io.Writer, r *indexstatus.IndexedJobStatus) error {
	if len(r.Indexes) < streamIndexesFrom {
		return output.PrintStructured(w, output.FormatJSON, r)
	}
	// The report with an empty list where indexes[] goes: the top-level field is the only
	// text of that form (a newline in a string value is escaped; deeper fields are indented
	// more).
	head := *r
	head.Indexes = []indexstatus.IndexStatus{}
	var b bytes.Buffer
	if err := output.PrintStructured(&b, output.FormatJSON, &head); err != nil {
		return err
	}
	marker := []byte("\n  \"indexes\": []")
	at := bytes.Index(b.Bytes(), marker)
	if at < 0 || bytes.Count(b.Bytes(), marker) != 1 {
		return output.PrintStructured(w, output.FormatJSON, r)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(b.Bytes()[:at+len(marker)-1]) // up to and including "["
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	for i := range r.Indexes {
		one.Reset()
		if err := enc.Encode(&r.Indexes[i]); err != nil {
			return err
		}
		if i > 0 {
			_, _ = bw.WriteString(",")
		}
		_, _ = bw.WriteString("\n    ")
		_, _ = bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
	}
	_, _ = bw.WriteString("\n  ]")
	_, _ = bw.Write(b.Bytes()[at+len(marker):])
	return bw.Flush()
}
