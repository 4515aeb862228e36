package source

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// streamYAMLFile reads the regular file at path a YAML document at a time, handing the
// documents to each as splitYAML splits them, and says true; or false, having handed nothing,
// when the file is to be read whole instead: larger than limit (ReadFile says so), empty,
// binary or not UTF-8 (one unreadable document), or JSON. A first pass checks that (reading
// lines, keeping none), a second one splits the file, up to the bytes the first one read.
func streamYAMLFile(path string, limit int64, each func(name string, next func() (chunk, bool))) (bool, error) {
	f, info, err := OpenFile(path)
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }()
	if info.Size() > limit {
		return false, nil
	}
	lines := newLineReader(io.LimitReader(f, limit+1))
	var (
		size      int64 // bytes read, a byte order mark included
		firstByte byte  // the first byte that is not white space, after a byte order mark
	)
	for {
		line, err := lines.next()
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		size += int64(len(line))
		if size == int64(len(line)) {
			line = bytes.TrimPrefix(line, bom)
		}
		if bytes.IndexByte(line, 0) >= 0 || !utf8.Valid(line) {
			return false, nil
		}
		if t := bytes.TrimLeft(line, " \t\r\n"); firstByte == 0 && len(t) > 0 {
			firstByte = t[0]
		}
		if err != nil {
			break
		}
	}
	if size == 0 || size > limit || firstByte == '{' {
		return false, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	lines = newLineReader(io.LimitReader(f, size))
	split := yamlSplitter{lines: lines, startLine: 1, line: 1, first: true}
	each(path, split.next)
	return true, split.err
}

var bom = []byte("\xef\xbb\xbf")

// lineReader returns the lines of r, each with its newline (the last one maybe without).
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line, valid until the next call, and io.EOF with the last one.
func (l *lineReader) next() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	// A line longer than the buffer.
	l.buf = append(l.buf[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = l.r.ReadSlice('\n')
		l.buf = append(l.buf, line...)
	}
	return l.buf, err
}

// yamlSplitter splits the YAML stream of a lineReader at document separators ("---" at the
// start of a line), as kubectl does: next returns the documents one at a time, each in a
// buffer of its own, with the line where it starts.
type yamlSplitter struct {
	lines           *lineReader
	startLine, line int
	first, done     bool
	err             error
}

func (s *yamlSplitter) next() (chunk, bool) {
	var text []byte
	for !s.done {
		line, err := s.lines.next()
		if err != nil {
			s.done = true
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
		}
		if s.first {
			line, s.first = bytes.TrimPrefix(line, bom), false
		}
		s.line++ // the number of the line after this one
		if isSeparator(line) {
			c := chunk{text: text, line: s.startLine}
			s.startLine = s.line
			return c, true
		}
		text = append(text, line...)
	}
	if len(text) > 0 {
		return chunk{text: text, line: s.startLine}, true
	}
	return chunk{}, false
}
