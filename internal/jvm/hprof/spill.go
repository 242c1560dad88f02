package hprof

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"
)

// The analysis keeps in memory only the arrays its current phase needs;
// the others wait in temporary files under os.TempDir() (the page cache
// holds them while memory allows, outside the process's resident set).
// Each file is unlinked as soon as it is created: it lives while open and
// nothing is left behind on success, error or crash. The files hold the
// arrays in the machine's own byte order, written and read without a copy;
// an array the report reads only here and there is mapped instead of read
// (view), so that only the pages it touches are resident.

// tempFiles is the temporary files of one analysis.
type tempFiles struct {
	dir      string // "" is os.TempDir()
	inMemory bool   // view reads the whole array (tests keep the arrays past close)
	files    []*os.File
	maps     [][]byte
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

// close unmaps the views and closes and removes every file: no array of
// a view may be read after it.
func (t *tempFiles) close() {
	for _, m := range t.maps {
		unmap(m)
	}
	for _, f := range t.files {
		f.Close()
		_ = os.Remove(f.Name())
	}
	t.files, t.maps = nil, nil
}

// drop closes one file its phase is done with: its disk space and page
// cache go back at once rather than at the analysis's end.
func (t *tempFiles) drop(f *os.File) {
	for i, g := range t.files {
		if g == f {
			f.Close()
			_ = os.Remove(f.Name())
			t.files = append(t.files[:i], t.files[i+1:]...)
			return
		}
	}
}

// spillBuf is the size of the buffers streams are written and read through.
const spillBuf = 1 << 20

// word is what spilled arrays hold.
type word interface{ ~uint32 | ~uint64 }

// asBytes is an array's memory as bytes.
func asBytes[T word](a []T) []byte {
	if len(a) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), int(unsafe.Sizeof(a[0]))*len(a))
}

// arrayFile is an array kept in a temporary file.
type arrayFile[T word] struct {
	t    *tempFiles
	f    *os.File
	n    int
	what string
}

// u32File and u64File are the two kinds the phases spill.
type (
	u32File = arrayFile[uint32]
	u64File = arrayFile[uint64]
)

// spillArray writes a to a new temporary file.
func spillArray[T word](t *tempFiles, what string, a []T) (*arrayFile[T], error) {
	f, err := t.create(what)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(asBytes(a)); err != nil {
		return nil, fmt.Errorf("%s: write temporary file %s: %w", what, f.Name(), err)
	}
	return &arrayFile[T]{t: t, f: f, n: len(a), what: what}, nil
}

// spilling is an array being written to its temporary file on a
// goroutine of its own, beside what the caller does meanwhile.
type spilling[T word] struct {
	file *arrayFile[T]
	done chan error
}

// spillAsync starts writing a to a new temporary file; a must not change
// until wait returns. The file is made here: tempFiles is not for two
// goroutines.
func spillAsync[T word](t *tempFiles, what string, a []T) (*spilling[T], error) {
	f, err := t.create(what)
	if err != nil {
		return nil, err
	}
	s := &spilling[T]{file: &arrayFile[T]{t: t, f: f, n: len(a), what: what}, done: make(chan error, 1)}
	go func() {
		_, err := f.Write(asBytes(a))
		if err != nil {
			err = fmt.Errorf("%s: write temporary file %s: %w", what, f.Name(), err)
		}
		s.done <- err
	}()
	return s, nil
}

// wait returns the array's file once written.
func (s *spilling[T]) wait() (*arrayFile[T], error) {
	if err := <-s.done; err != nil {
		return nil, err
	}
	return s.file, nil
}

// spillU32 and spillU64 write an array to a new temporary file.
func (t *tempFiles) spillU32(what string, a []uint32) (*u32File, error) {
	return spillArray(t, what, a)
}
func (t *tempFiles) spillU64(what string, a []uint64) (*u64File, error) {
	return spillArray(t, what, a)
}

// size is the bytes of one value.
func (u *arrayFile[T]) size() int {
	var v T
	return int(unsafe.Sizeof(v))
}

// load reads the whole array back.
func (u *arrayFile[T]) load() ([]T, error) {
	a := make([]T, u.n)
	if n, err := u.f.ReadAt(asBytes(a), 0); err != nil && !(err == io.EOF && n == u.size()*u.n) {
		return nil, fmt.Errorf("%s: temporary file offset %d: %w", u.what, n, err)
	}
	return a, nil
}

// view is the array mapped from its file (read only, valid until the
// files are closed), or loaded when it cannot be mapped.
func (u *arrayFile[T]) view() ([]T, error) {
	if u.n == 0 || u.t.inMemory {
		return u.load()
	}
	m, err := mapFile(u.f, u.size()*u.n)
	if err != nil {
		return u.load()
	}
	u.t.maps = append(u.t.maps, m)
	return unsafe.Slice((*T)(unsafe.Pointer(&m[0])), u.n), nil
}

// reader streams the array from its start.
func (u *arrayFile[T]) reader() *arrayReader[T] {
	return &arrayReader[T]{r: io.NewSectionReader(u.f, 0, int64(u.n*u.size())), what: u.what, size: u.size(),
		buf: make([]T, spillBuf/u.size())}
}

// readerFrom streams the values from index from to index to.
func (u *arrayFile[T]) readerFrom(from, to int) *arrayReader[T] {
	size := u.size()
	return &arrayReader[T]{r: io.NewSectionReader(u.f, int64(from*size), int64((to-from)*size)), what: u.what, size: size,
		off: int64(from * size), buf: make([]T, spillBuf/size)}
}

// at reads the value at index i.
func (u *arrayFile[T]) at(i int) (T, error) {
	var v [1]T
	if _, err := u.f.ReadAt(asBytes(v[:]), int64(i*u.size())); err != nil {
		return 0, fmt.Errorf("%s: temporary file offset %d: %w", u.what, i*u.size(), err)
	}
	return v[0], nil
}

// appendArray appends b's values to a's file and returns the array they
// make; b's file is left as it was.
func appendArray[T word](a, b *arrayFile[T]) (*arrayFile[T], error) {
	size := int64(a.size())
	if _, err := a.f.Seek(size*int64(a.n), io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: temporary file %s: %w", a.what, a.f.Name(), err)
	}
	if _, err := b.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: temporary file %s: %w", b.what, b.f.Name(), err)
	}
	// An *os.File reading a limited *os.File copies in the kernel.
	if _, err := io.Copy(a.f, &io.LimitedReader{R: b.f, N: size * int64(b.n)}); err != nil {
		return nil, fmt.Errorf("%s: append temporary file %s: %w", a.what, b.f.Name(), err)
	}
	return &arrayFile[T]{t: a.t, f: a.f, n: a.n + b.n, what: a.what}, nil
}

// arrayReader reads a spilled array in order, a buffer at a time.
type arrayReader[T word] struct {
	r    io.Reader
	what string
	size int   // bytes of a value
	off  int64 // of the file's next read
	buf  []T   // the last read
	vals []T   // the part of buf not yet taken
}

// next returns the next at most max values (at least one); the slice is
// valid until the next call.
func (r *arrayReader[T]) next(max int) ([]T, error) {
	if len(r.vals) == 0 {
		n, err := io.ReadFull(r.r, asBytes(r.buf))
		if n < r.size {
			if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return nil, fmt.Errorf("%s: temporary file offset %d: %w", r.what, r.off, err)
		}
		r.off += int64(n / r.size * r.size)
		r.vals = r.buf[:n/r.size]
	}
	k := min(max, len(r.vals))
	out := r.vals[:k]
	r.vals = r.vals[k:]
	return out, nil
}

// fill reads the next len(dst) values into dst.
func (r *arrayReader[T]) fill(dst []T) error {
	for len(dst) > 0 {
		vs, err := r.next(len(dst))
		if err != nil {
			return err
		}
		dst = dst[copy(dst, vs):]
	}
	return nil
}

// backward streams the array from its end.
func (u *arrayFile[T]) backward() *arrayBackward[T] {
	return &arrayBackward[T]{f: u.f, what: u.what, size: int64(u.size()), pos: int64(u.n), buf: make([]T, spillBuf/u.size())}
}

// arrayBackward reads a spilled array from its end to its start, a buffer
// at a time.
type arrayBackward[T word] struct {
	f    *os.File
	what string
	size int64 // bytes of a value
	pos  int64 // index of the first value read so far
	buf  []T   // the last read
	vals []T   // the part of buf not yet taken: its last is the next
}

// prev returns the at most max values (at least one) before those taken,
// in array order; the slice is valid until the next call.
func (r *arrayBackward[T]) prev(max int) ([]T, error) {
	if len(r.vals) == 0 {
		if r.pos == 0 {
			return nil, fmt.Errorf("%s: temporary file offset 0 read backward: %w", r.what, io.EOF)
		}
		k := min(r.pos, int64(len(r.buf)))
		r.pos -= k
		if _, err := r.f.ReadAt(asBytes(r.buf[:k]), r.size*r.pos); err != nil {
			return nil, fmt.Errorf("%s: temporary file offset %d: %w", r.what, r.size*r.pos, err)
		}
		r.vals = r.buf[:k]
	}
	k := min(max, len(r.vals))
	out := r.vals[len(r.vals)-k:]
	r.vals = r.vals[:len(r.vals)-k]
	return out, nil
}

// one returns the value before those taken.
func (r *arrayBackward[T]) one() (T, error) {
	v, err := r.prev(1)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// arrayWriter appends values to a temporary file through a buffer.
type arrayWriter[T word] struct {
	t    *tempFiles
	f    *os.File
	buf  []T
	n    int64 // values put
	what string
	err  error // the first write error, reported by finish
}

// idWriter writes raw object ids.
type idWriter = arrayWriter[uint64]

func newArrayWriter[T word](t *tempFiles, what string) (*arrayWriter[T], error) {
	f, err := t.create(what)
	if err != nil {
		return nil, err
	}
	var v T
	return &arrayWriter[T]{t: t, f: f, buf: make([]T, 0, spillBuf/int(unsafe.Sizeof(v))), what: what}, nil
}

func (t *tempFiles) idWriter(what string) (*idWriter, error) { return newArrayWriter[uint64](t, what) }

func (w *arrayWriter[T]) put(v T) {
	w.buf = append(w.buf, v)
	w.n++
	if len(w.buf) == cap(w.buf) {
		w.flush()
	}
}

// putAll puts vs in order.
func (w *arrayWriter[T]) putAll(vs []T) {
	for len(vs) > 0 {
		k := copy(w.buf[len(w.buf):cap(w.buf)], vs)
		w.buf = w.buf[:len(w.buf)+k]
		w.n += int64(k)
		vs = vs[k:]
		if len(w.buf) == cap(w.buf) {
			w.flush()
		}
	}
}

func (w *arrayWriter[T]) flush() {
	if _, err := w.f.Write(asBytes(w.buf)); err != nil && w.err == nil {
		w.err = err
	}
	w.buf = w.buf[:0]
}

// finish flushes the values and returns the array they make.
func (w *arrayWriter[T]) finish() (*arrayFile[T], error) {
	w.flush()
	if w.err != nil {
		return nil, fmt.Errorf("%s: write temporary file %s: %w", w.what, w.f.Name(), w.err)
	}
	return &arrayFile[T]{t: w.t, f: w.f, n: int(w.n), what: w.what}, nil
}
