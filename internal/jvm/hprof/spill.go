package hprof

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// The analysis keeps in memory only the arrays its current phase needs;
// the others wait in temporary files under os.TempDir() (the page cache
// holds them while memory allows, outside the process's resident set).
// Each file is unlinked as soon as it is created: it lives while open and
// nothing is left behind on success, error or crash.

// tempFiles is the temporary files of one analysis.
type tempFiles struct {
	dir   string // "" is os.TempDir()
	files []*os.File
}

// create opens a new temporary file; what names it in errors.
func (t *tempFiles) create(what string) (*os.File, error) {
	f, err := os.CreateTemp(t.dir, "sparkdx-heap-*")
	if err != nil {
		return nil, fmt.Errorf("temporary file for %s: %w", what, err)
	}
	// Gone from the directory at once; the data stays reachable through f.
	// Should the system refuse (some do while it is open), close removes it.
	_ = os.Remove(f.Name())
	t.files = append(t.files, f)
	return f, nil
}

// close closes and removes every file.
func (t *tempFiles) close() {
	for _, f := range t.files {
		f.Close()
		_ = os.Remove(f.Name())
	}
	t.files = nil
}

// spillBuf is the size of the buffers files are written and read through.
const spillBuf = 1 << 20

// u32File is a []uint32 kept in a temporary file, little-endian.
type u32File struct {
	f    *os.File
	n    int
	what string
}

// spillU32 writes a to a new temporary file.
func (t *tempFiles) spillU32(what string, a []uint32) (*u32File, error) {
	f, err := t.create(what)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, spillBuf)
	for i, x := range a {
		buf = binary.LittleEndian.AppendUint32(buf, x)
		if len(buf) == cap(buf) || i == len(a)-1 {
			if _, err := f.Write(buf); err != nil {
				return nil, fmt.Errorf("%s: write temporary file %s: %w", what, f.Name(), err)
			}
			buf = buf[:0]
		}
	}
	return &u32File{f: f, n: len(a), what: what}, nil
}

// load reads the whole array back.
func (u *u32File) load() ([]uint32, error) {
	a := make([]uint32, 0, u.n)
	r := u.reader()
	for len(a) < u.n {
		b, err := r.next(u.n - len(a))
		if err != nil {
			return nil, err
		}
		a = append(a, b...)
	}
	return a, nil
}

// reader streams the array from its start.
func (u *u32File) reader() *u32Reader {
	return &u32Reader{r: io.NewSectionReader(u.f, 0, int64(u.n)*4), what: u.what, raw: make([]byte, spillBuf)}
}

// u32Reader reads a spilled array in order, a buffer at a time.
type u32Reader struct {
	r    io.Reader
	what string
	off  int64 // of the file's next read
	raw  []byte
	buf  []uint32 // decoded raw
	vals []uint32 // the part of buf not yet taken
}

// next returns the next at most max values (at least one); the slice is
// valid until the next call.
func (r *u32Reader) next(max int) ([]uint32, error) {
	if len(r.vals) == 0 {
		n, err := io.ReadFull(r.r, r.raw)
		if n < 4 {
			if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return nil, fmt.Errorf("%s: temporary file offset %d: %w", r.what, r.off, err)
		}
		k := n / 4
		r.off += int64(4 * k)
		r.buf = r.buf[:0]
		for i := 0; i < k; i++ {
			r.buf = append(r.buf, binary.LittleEndian.Uint32(r.raw[4*i:]))
		}
		r.vals = r.buf
	}
	k := min(max, len(r.vals))
	out := r.vals[:k]
	r.vals = r.vals[k:]
	return out, nil
}

// u64File is a []uint64 kept in a temporary file, little-endian.
type u64File struct {
	w *idWriter
}

// spillU64 writes a to a new temporary file.
func (t *tempFiles) spillU64(what string, a []uint64) (*u64File, error) {
	w, err := t.idWriter(what)
	if err != nil {
		return nil, err
	}
	for _, x := range a {
		w.put(x)
	}
	w.flush()
	if w.err != nil {
		return nil, fmt.Errorf("%s: write temporary file %s: %w", what, w.f.Name(), w.err)
	}
	return &u64File{w: w}, nil
}

// load reads the whole array back.
func (u *u64File) load() ([]uint64, error) {
	r, err := u.w.finish()
	if err != nil {
		return nil, err
	}
	a := make([]uint64, 0, u.w.n)
	for int64(len(a)) < u.w.n {
		b, err := r.next(int(u.w.n) - len(a))
		if err != nil {
			return nil, err
		}
		a = append(a, b...)
	}
	return a, nil
}

// idWriter appends object ids to a temporary file through a buffer.
type idWriter struct {
	f    *os.File
	buf  []byte
	n    int64 // ids put
	what string
	err  error // the first write error, reported by finish
}

func (t *tempFiles) idWriter(what string) (*idWriter, error) {
	f, err := t.create(what)
	if err != nil {
		return nil, err
	}
	return &idWriter{f: f, buf: make([]byte, 0, spillBuf), what: what}, nil
}

func (w *idWriter) put(id uint64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, id)
	w.n++
	if len(w.buf) == cap(w.buf) {
		w.flush()
	}
}

func (w *idWriter) flush() {
	if _, err := w.f.Write(w.buf); err != nil && w.err == nil {
		w.err = err
	}
	w.buf = w.buf[:0]
}

// finish flushes the ids and returns a reader from the first.
func (w *idWriter) finish() (*idReader, error) {
	w.flush()
	if w.err != nil {
		return nil, fmt.Errorf("%s: write temporary file %s: %w", w.what, w.f.Name(), w.err)
	}
	return &idReader{r: io.NewSectionReader(w.f, 0, 8*w.n), what: w.what, raw: make([]byte, spillBuf)}, nil
}

// idReader reads back what an idWriter wrote, a buffer at a time.
type idReader struct {
	r    io.Reader
	what string
	off  int64 // of the file's next read
	raw  []byte
	buf  []uint64 // decoded raw
	ids  []uint64 // the part of buf not yet taken
}

// next returns the next at most max ids (at least one); the slice is valid
// until the next call.
func (r *idReader) next(max int) ([]uint64, error) {
	if len(r.ids) == 0 {
		n, err := io.ReadFull(r.r, r.raw)
		if n < 8 {
			if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return nil, fmt.Errorf("%s: temporary file offset %d: %w", r.what, r.off, err)
		}
		k := n / 8
		r.off += int64(8 * k)
		r.buf = r.buf[:0]
		for i := 0; i < k; i++ {
			r.buf = append(r.buf, binary.LittleEndian.Uint64(r.raw[8*i:]))
		}
		r.ids = r.buf
	}
	k := min(max, len(r.ids))
	out := r.ids[:k]
	r.ids = r.ids[k:]
	return out, nil
}
