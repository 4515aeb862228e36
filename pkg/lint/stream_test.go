package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	lintcorpus "github.com/kubectl-indexed/kubectl-indexed/test/lint"
)

// A Linter that streams its text prints what PrintText prints of the whole report, in the
// same order, though the documents are checked by several workers at once and not in order
// (source.ForEachInOrder hands them to Keep in order), and keeps no
// finding: on one stream of every YAML manifest of the corpus (Lists, unreadable documents,
// duplicate keys, several findings on one line), each document three times.
func TestStreamTextPrintsAsPrintText(t *testing.T) {
	files, err := lintcorpus.Files(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var stream strings.Builder
	for range 3 {
		for _, f := range files {
			if !strings.HasSuffix(f, ".yaml") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(corpusDir, f))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
				continue // a binary input is one unreadable document, whatever it holds
			}
			stream.WriteString("---\n")
			stream.Write(data)
			if !bytes.HasSuffix(data, []byte("\n")) {
				stream.WriteString("\n")
			}
		}
	}
	path := filepath.Join(t.TempDir(), "corpus.yaml")
	if err := os.WriteFile(path, []byte(stream.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []TextOptions{{Width: 80}, {Brief: true}, {Color: true}} {
		whole := NewLinter(Options{})
		if err := source.ForEachInOrder([]string{path}, source.Options{}, 4, whole.Check, whole.Keep); err != nil {
			t.Fatal(err)
		}
		report, err := whole.Report()
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := PrintText(&want, report, opts); err != nil {
			t.Fatal(err)
		}

		streamed := NewLinter(Options{})
		var got bytes.Buffer
		streamed.StreamText(&got, opts)
		// Some documents take longer to check, so that later ones are done first.
		slow := func(d *source.Document) Checked {
			if d.Doc%5 == 0 {
				time.Sleep(time.Millisecond)
			}
			return streamed.Check(d)
		}
		if err := source.ForEachInOrder([]string{path}, source.Options{}, 4, slow, streamed.Keep); err != nil {
			t.Fatal(err)
		}
		sr, err := streamed.Report()
		if err != nil {
			t.Fatal(err)
		}
		if len(sr.Findings) != 0 || len(sr.Objects) != 0 {
			t.Errorf("%+v: the streaming report kept %d findings and %d objects", opts, len(sr.Findings), len(sr.Objects))
		}
		if err := PrintSummary(&got, sr, opts); err != nil {
			t.Fatal(err)
		}
		if report.Summary.Documents < 300 || report.Summary.Errors == 0 || report.Summary.Unreadable == 0 || sr.Summary != report.Summary {
			t.Errorf("%+v: summaries %+v (streamed) and %+v", opts, sr.Summary, report.Summary)
		}
		if got.String() != want.String() {
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Errorf("%+v: line %d of %d differs:\nstreamed: %s\nwhole:    %s", opts, i+1, len(w), g[i], w[i])
					break
				}
			}
			if len(g) != len(w) {
				t.Errorf("%+v: %d lines streamed, %d whole", opts, len(g), len(w))
			}
		}
	}
}
