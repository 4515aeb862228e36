package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The one bounded reader of every file input (manifests, pod lists, receipts): it reads only
// regular files and standard input, and enforces its byte cap on what it reads, not on what a
// file's size says (a device or a FIFO has none, and a file can grow while it is read).

// NotRegularError is a path that names something other than a regular file: a FIFO, a
// device, a socket. Reading one could block forever (a FIFO nobody writes) or never end
// (/dev/zero), so it is refused before it is opened.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	kind := "not a regular file"
	switch t := e.Mode.Type(); {
	case t&fs.ModeNamedPipe != 0:
		kind = "a FIFO (named pipe)"
	case t&fs.ModeCharDevice != 0:
		kind = "a character device"
	case t&fs.ModeDevice != 0:
		kind = "a device"
	case t&fs.ModeSocket != 0:
		kind = "a socket"
	case t&fs.ModeDir != 0:
		kind = "a directory"
	}
	return fmt.Sprintf("%s, not a regular file: only files and standard input (-) are read (pipe it in: < FILE or cat FILE |)", kind)
}

// OpenFile opens path, following symbolic links, when it is a regular file. Anything else is
// a *NotRegularError, found without opening it (opening a FIFO blocks until it has a writer).
// The file is checked again once open, in case it was replaced in between.
func OpenFile(path string) (*os.File, fs.FileInfo, error) {
	before, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Mode: before.Mode()}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil && (!info.Mode().IsRegular() || !os.SameFile(before, info)) {
		err = &NotRegularError{Mode: info.Mode()}
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// ReadFile reads the regular file at path, at most limit bytes (limit <= 0: DefaultMaxBytes):
// more is a *TooLargeError, a FIFO or a device a *NotRegularError. It holds one buffer the
// size of the file.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, info, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return readBounded(f, info.Size(), limit)
}

// ReadAllBounded reads r to its end, or fails with a *TooLargeError once it has read more than
// limit bytes (limit <= 0: DefaultMaxBytes). A regular file given as r (standard input
// redirected from a file) is read as ReadFile reads it; other readers cost at most twice what
// was read, never more than twice the limit.
func ReadAllBounded(r io.Reader, limit int64) ([]byte, error) {
	var size int64 = -1
	if f, ok := r.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil {
				size = max(info.Size()-off, 0)
			}
		}
	}
	return readBounded(r, size, limit)
}

// readBounded reads r to its end, into chunks that are never copied while reading (io.ReadAll's
// growing buffer leaves a trail of copies behind, about 2.5 times what it read), then copied
// once into a buffer of the exact size. size is what r is expected to hold (-1: unknown): the
// first chunk is then that size, plus a byte to see its end (or that it grew), and when it
// holds everything it is returned as it is. The cap is checked on the bytes read, whatever
// size says.
func readBounded(r io.Reader, size, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	const first, largest = 64 << 10, 1 << 20
	var chunks [][]byte
	var total int64
	next := int64(first)
	if size >= 0 {
		next = size + 1
	}
	for {
		chunk := make([]byte, 0, min(next, limit+1-total))
		for len(chunk) < cap(chunk) {
			n, err := r.Read(chunk[len(chunk):cap(chunk)])
			chunk = chunk[:len(chunk)+n]
			if errors.Is(err, io.EOF) && size >= 0 && len(chunks) == 0 {
				return chunk, nil
			}
			if errors.Is(err, io.EOF) {
				return bytes.Join(append(chunks, chunk), nil), nil
			}
			if err != nil {
				return nil, err
			}
		}
		chunks = append(chunks, chunk)
		total += int64(len(chunk))
		if total > limit {
			return nil, &TooLargeError{Limit: limit}
		}
		next = min(next*2, largest)
	}
}
