// Package source reads Kubernetes objects from files, directories and standard input, the way
// `kubectl apply -f` accepts them: YAML or JSON, multi-document streams and List objects. Every
// object keeps where it came from (file, document, line), so that findings can point at it.
package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// StdinName is the name used for standard input, as given on the command line.
const StdinName = "-"

// Document is one object read from an input: a YAML document, a JSON value or one item of a
// List. When the object could not be parsed, Err says why and Object is nil.
type Document struct {
	// File is the path as given (or found under a directory given), or "-" for stdin.
	File string `json:"file"`
	// Doc is the 1-based position of the YAML document (or JSON value) in File.
	Doc int `json:"doc"`
	// Item is the 0-based index in the List the object came from, or -1.
	Item int `json:"item"`
	// Line is the 1-based line where the object starts in File (0 when unknown).
	Line int `json:"line"`
	// JSON is the object as JSON.
	JSON []byte `json:"-"`
	// Object is the decoded object (nil when Err is set).
	Object map[string]any `json:"-"`
	// Err is the reason this document could not be read as an object.
	Err error `json:"-"`

	// raw is the text of the YAML document (or JSON value) holding the object, and rawLine
	// the line in File where raw starts. Field lines are looked up in its node tree, parsed on
	// the first lookup (treeRead) and kept in tree.
	raw      []byte
	rawLine  int
	tree     *yamlv3.Node
	treeRead bool
}

// Location renders "file:line" or "file (document n)" for messages.
func (d *Document) Location() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	return fmt.Sprintf("%s (document %d)", d.File, d.Doc)
}

// Kind returns the object's kind, or "".
func (d *Document) Kind() string { return stringAt(d.Object, "kind") }

// APIVersion returns the object's apiVersion, or "".
func (d *Document) APIVersion() string { return stringAt(d.Object, "apiVersion") }

// Name returns metadata.name (or metadata.generateName followed by "*"), or "".
func (d *Document) Name() string {
	md, _ := d.Object["metadata"].(map[string]any)
	if n := stringAt(md, "name"); n != "" {
		return n
	}
	if g := stringAt(md, "generateName"); g != "" {
		return g + "*"
	}
	return ""
}

// Namespace returns metadata.namespace, or "".
func (d *Document) Namespace() string {
	md, _ := d.Object["metadata"].(map[string]any)
	return stringAt(md, "namespace")
}

func stringAt(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// DuplicateKeyError is the Err of a YAML document that is valid except for duplicate mapping
// keys. Such a document still has its Object (and JSON): the object kubectl reads from it,
// where the last of the duplicated keys wins.
type DuplicateKeyError struct {
	Err error
	// Key is the key given twice; First is the line of its first occurrence and Again that of
	// the one the parser stopped at, both in the file (0 when the parser's message names no
	// line that the document's node tree confirms).
	Key          string
	First, Again int
}

func (e *DuplicateKeyError) Error() string { return e.Err.Error() }
func (e *DuplicateKeyError) Unwrap() error { return e.Err }

// Options controls Read.
type Options struct {
	// Recursive descends into subdirectories of directories given.
	Recursive bool
	// Stdin is read for the path "-".
	Stdin io.Reader
	// SkippedDir, when set, is called with each subdirectory that was not read because
	// Recursive is false.
	SkippedDir func(dir string)
	// MaxBytes bounds what is read from one input (a file, standard input, a FIFO or a
	// device); 0 means DefaultMaxBytes. An input that holds more is a *ReadError wrapping a
	// *TooLargeError, after reading at most MaxBytes+1 bytes of it.
	MaxBytes int64
}

// DefaultMaxBytes is the most read from one input unless Options.MaxBytes says otherwise:
// far more than any Job, manifest or pod list an API server stores (etcd's request limit is
// 1.5 MiB an object), and a bound on an endless input (/dev/zero, a FIFO nobody closes) that
// would otherwise be read until the machine runs out of memory.
const DefaultMaxBytes = 256 << 20

// TooLargeError is an input larger than the bound of what is read.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %s, the most read from one input: is it the right file? (an endless stream such as /dev/zero is cut off here)", byteSize(e.Limit))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// ReadError is an input that could not be read at all (missing file, unreadable directory).
type ReadError struct {
	Path string
	Err  error
}

func (e *ReadError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *ReadError) Unwrap() error { return e.Err }

// Read reads every object from paths. Files in directories are read if they end in .yaml, .yml
// or .json, in lexical order. An input that cannot be opened is a *ReadError; a document that
// cannot be parsed is returned with its Err set, so that the rest of the stream is still read.
func Read(paths []string, opts Options) ([]Document, error) {
	var docs []Document
	err := readInputs(paths, opts, func(name string, data []byte) {
		docs = append(docs, Parse(name, data)...)
	}, nil)
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// ForEachInOrder reads paths as Read does without keeping the documents: check is called for
// every document, from up to workers goroutines at once (at least 1), so it must be safe for
// concurrent use, in no particular order; keep is called with each result, one at a time, in
// the order of files, documents and List items. A result waits only for those of the
// documents before it, so a stream's results reach keep as it is read, not at its end, and
// are not kept after. A regular file of YAML is read a document at a time (after a first pass
// that checks it is text within the size bound), so a stream of any length is read in the
// memory of the documents being handled; standard input and JSON are read whole first.
// Documents of a file are handled before the next file is read. An input that cannot be read
// stops the walk with a *ReadError.
func ForEachInOrder[R any](paths []string, opts Options, workers int, check func(*Document) R, keep func(R)) error {
	each := func(name string, next func() (chunk, bool)) {
		eachInOrder(name, next, workers, check, keep)
	}
	return readInputs(paths, opts, func(name string, data []byte) {
		chunks, binary := splitInput(name, data)
		if binary != nil {
			keep(check(binary))
			return
		}
		i := 0
		each(name, func() (chunk, bool) {
			if i == len(chunks) {
				return chunk{}, false
			}
			c := chunks[i]
			chunks[i] = chunk{} // what is handed out is not kept here
			i++
			return c, true
		})
	}, func(path string) (bool, error) { return streamYAMLFile(path, opts.maxBytes(), each) })
}

// eachInOrder parses the chunks next returns (the documents of file name, in order), checks
// their documents on up to workers goroutines and keeps the results in order.
func eachInOrder[R any](name string, next func() (chunk, bool), workers int, check func(*Document) R, keep func(R)) {
	// Workers take the next chunk in turn: no hand-off per document, which costs a wake-up
	// each on a busy machine. The worker that completes the first chunk not yet kept keeps it
	// and every completed one after it.
	var (
		mu      sync.Mutex // guards next, taken
		taken   int
		keepMu  sync.Mutex // guards results, kept
		results = map[int][]R{}
		kept    int
	)
	take := func() (int, chunk, bool) {
		mu.Lock()
		defer mu.Unlock()
		c, ok := next()
		taken++
		return taken - 1, c, ok
	}
	work := func() {
		for {
			i, c, ok := take()
			if !ok {
				return
			}
			var rs []R
			docs, _ := parseChunk(name, i+1, c)
			for _, d := range docs {
				rs = append(rs, check(&d))
			}
			keepMu.Lock()
			results[i] = rs
			for {
				rs, done := results[kept]
				if !done {
					break
				}
				for _, r := range rs {
					keep(r)
				}
				delete(results, kept)
				kept++
			}
			keepMu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < max(workers, 1); w++ {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// readInputs reads every input named by paths ("-" is opts.Stdin; directories are expanded)
// and hands each file's content to parse.
//
// streamFile, when not nil, is offered each file first: it reads it itself and says so, or
// returns false to have it read whole and handed to parse.
func readInputs(paths []string, opts Options, parse func(name string, data []byte), streamFile func(path string) (bool, error)) error {
	stdinSeen := false
	for _, p := range paths {
		if p == StdinName {
			if stdinSeen {
				return &ReadError{Path: p, Err: errors.New("standard input given more than once")}
			}
			stdinSeen = true
			if opts.Stdin == nil {
				return &ReadError{Path: p, Err: errors.New("no standard input")}
			}
			data, err := ReadAllBounded(opts.Stdin, opts.maxBytes())
			if err != nil {
				return &ReadError{Path: p, Err: err}
			}
			parse(StdinName, data)
			continue
		}
		files, err := expand(p, opts.Recursive, opts.SkippedDir)
		if err != nil {
			return err
		}
		for _, f := range files {
			if streamFile != nil {
				done, err := streamFile(f)
				if err != nil {
					return &ReadError{Path: f, Err: UnwrapPathError(err)}
				}
				if done {
					continue
				}
			}
			data, err := ReadFile(f, opts.maxBytes())
			if err != nil {
				return &ReadError{Path: f, Err: UnwrapPathError(err)}
			}
			parse(f, data)
		}
	}
	return nil
}

// UnwrapPathError is the error of a *fs.PathError without the path (which the caller's message
// names already), or err.
func UnwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// expand turns a path into the files it names.
func expand(p string, recursive bool, skipped func(string)) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, &ReadError{Path: p, Err: UnwrapPathError(err)}
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return &ReadError{Path: path, Err: UnwrapPathError(err)}
		}
		if d.IsDir() {
			if path != p && !recursive {
				if skipped != nil {
					skipped(path)
				}
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// Parse splits data into objects. It never fails as a whole: unparsable documents come back
// with Err set and the line where they start.
func Parse(name string, data []byte) []Document {
	docs, _ := parseObjects(name, data)
	return docs
}

// parseObjects is Parse that also counts the objects data holds (see parseChunk).
func parseObjects(name string, data []byte) (docs []Document, objects int) {
	chunks, binary := splitInput(name, data)
	if binary != nil {
		return []Document{*binary}, 1
	}
	for i, c := range chunks {
		d, ok := parseChunk(name, i+1, c)
		docs = append(docs, d...)
		if ok {
			objects++
		}
	}
	return docs, objects
}

// splitInput splits data into its documents, or returns the one Document saying that data is
// not text.
func splitInput(name string, data []byte) ([]chunk, *Document) {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, &Document{File: name, Doc: 1, Item: -1, Line: 1,
			Err: errors.New("not YAML or JSON: the input is binary or not UTF-8 text")}
	}
	data = bytes.TrimPrefix(data, bom)
	// A stream that starts with '{' is read as JSON values, anything else as YAML.
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return splitJSON(data), nil
	}
	return splitYAML(data), nil
}

type chunk struct {
	text []byte
	line int // 1-based line of the chunk's first byte in the file
	err  error
}

// splitJSON splits a stream of JSON values.
func splitJSON(data []byte) []chunk {
	var chunks []chunk
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		rest := data[dec.InputOffset():]
		start := len(data) - len(bytes.TrimLeft(rest, " \t\r\n"))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return chunks
		}
		if err != nil {
			line := lineAt(data, start)
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = lineAt(data, int(se.Offset))
			}
			return append(chunks, chunk{line: lineAt(data, start), err: fmt.Errorf("line %d: invalid JSON: %v", line, err)})
		}
		chunks = append(chunks, chunk{text: raw, line: lineAt(data, start)})
	}
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	return bytes.Count(data[:min(off, len(data))], []byte{'\n'}) + 1
}

// splitYAML splits a YAML stream at document separators ("---" at the start of a line), as
// kubectl does, remembering where each document starts: yamlSplitter on data.
func splitYAML(data []byte) []chunk {
	split := yamlSplitter{lines: newLineReader(bytes.NewReader(data)), startLine: 1, line: 1}
	var chunks []chunk
	for c, ok := split.next(); ok; c, ok = split.next() {
		chunks = append(chunks, c)
	}
	return chunks
}

func isSeparator(line []byte) bool {
	line = bytes.TrimRight(line, "\r\n")
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t'
}

// shiftLines rewrites "line N" in a YAML parser message to a line of the whole file.
func shiftLines(msg string, offset int) string {
	return lineRE.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(m[len("line "):])
		if err != nil {
			return m
		}
		return fmt.Sprintf("line %d", n+offset)
	})
}

// parseChunk parses the documents of one chunk, and says whether it held anything: false for
// a blank document or one holding only null, true otherwise, also for a List with no items
// (which gives no Document).
func parseChunk(name string, doc int, c chunk) ([]Document, bool) {
	base := Document{File: name, Doc: doc, Item: -1, Line: c.line, raw: c.text, rawLine: c.line}
	if c.err != nil {
		base.Err = c.err
		return []Document{base}, true
	}
	if isBlank(c.text) {
		return nil, false
	}
	base.Line = c.line + leadingBlankLines(c.text)
	js, err := yaml.YAMLToJSONStrict(c.text)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
		base.Err = fmt.Errorf("invalid YAML: %s", shiftLines(msg, c.line-1))
		if !strings.Contains(msg, "line ") {
			base.Err = fmt.Errorf("line %d: invalid YAML: %s", base.Line, msg)
		}
		if lenient, lerr := yaml.YAMLToJSON(c.text); lerr == nil {
			// Only the strict parser failed: duplicate keys. kubectl reads such a document
			// (the last value wins); keep that object next to the error.
			dup := &DuplicateKeyError{Err: base.Err}
			if key, first, again, ok := duplicateKey(c.text, msg); ok {
				dup.Key, dup.First, dup.Again = key, first+c.line-1, again+c.line-1
			}
			base.Err = dup
			var obj map[string]any
			if json.Unmarshal(lenient, &obj) == nil && obj != nil {
				if _, isList := obj["items"].([]any); !isList {
					base.JSON, base.Object = lenient, obj
				}
			}
		}
		return []Document{base}, true
	}
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		base.Err = fmt.Errorf("invalid document: %v", err)
		return []Document{base}, true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return nil, false // a document holding only null, as "---\n~\n"
		}
		base.Err = fmt.Errorf("line %d: the document is %s, not a Kubernetes object", base.Line, describe(v))
		return []Document{base}, true
	}
	base.JSON, base.Object = js, obj
	items, isList := obj["items"].([]any)
	kind, _ := obj["kind"].(string)
	if !isList || !strings.HasSuffix(kind, "List") {
		return []Document{base}, true
	}
	out := make([]Document, 0, len(items))
	for i, it := range items {
		d := base
		d.Item = i
		d.JSON, d.Object = nil, nil
		d.Line = base.lineOfPath(fmt.Sprintf("items[%d]", i), base.Line)
		m, ok := it.(map[string]any)
		if !ok {
			d.Err = fmt.Errorf("line %d: item %d of the %s is %s, not a Kubernetes object", d.Line, i, kind, describe(it))
			out = append(out, d)
			continue
		}
		b, err := json.Marshal(m)
		if err != nil {
			d.Err = err
		} else {
			d.JSON, d.Object = b, m
		}
		out = append(out, d)
	}
	return out, true
}

func describe(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return fmt.Sprintf("a %T", v)
	}
}

func isBlank(text []byte) bool {
	for _, l := range bytes.Split(text, []byte{'\n'}) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("...")) {
			return false
		}
	}
	return true
}

func leadingBlankLines(text []byte) int {
	n := 0
	for _, l := range bytes.Split(text, []byte{'\n'}) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' {
			return n
		}
		n++
	}
	return n
}
