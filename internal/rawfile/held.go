package rawfile

import (
	"errors"
	"runtime"
	"syscall"
)

// File is one file read again and again through a descriptor kept open,
// with one pread from offset 0 per read: opening and closing a /proc file
// costs twice what reading it does (measured: 11.3 µs for open, read and
// close of a /proc/<pid>/stat, 3.9 µs for a pread). A read that fails (a
// /proc file whose process exited: ESRCH) closes the descriptor and reads
// once more from a fresh open, which also follows a path that now names
// another file. A File is not safe for concurrent use; Close releases it.
//
// A read shorter than the room in the buffer is taken as the whole file:
// procfs, sysfs and cgroupfs make the whole text on each read from offset
// 0, and a regular file's read is short only at its end.
type File struct {
	path string
	h    *handle
	max  int // a read of more bytes fails with ErrTooLarge; 0: no bound
	// noFollow opens the path only when its last element is no symbolic
	// link (O_NOFOLLOW).
	noFollow bool
}

// ErrTooLarge is the error of a File read past the bound NewLimited set.
var ErrTooLarge = errors.New("file larger than its bound")

// handle is a File's descriptor, apart so that a File that is garbage
// closes it (runtime.AddCleanup).
type handle struct{ fd int } // -1 when not open

// NewFile returns a File of path; nothing is opened before the first Read.
// Its descriptor is closed by Close, or when the File is garbage.
func NewFile(path string) *File {
	f := &File{path: path, h: &handle{fd: -1}}
	runtime.AddCleanup(f, (*handle).close, f.h)
	return f
}

func (h *handle) close() {
	if h.fd >= 0 {
		syscall.Close(h.fd)
		h.fd = -1
	}
}

// NewLimited is NewFile for a file that must not hold more than max
// bytes (an hsperfdata file, which HotSpot keeps under 2 MiB) and is
// never a symbolic link (HotSpot opens its own with O_NOFOLLOW too): a
// read of a larger one stops after max+1 bytes with ErrTooLarge instead
// of growing the buffer without end (a sparse file of gigabytes planted
// in its place), and a link swapped in fails to open (ELOOP).
func NewLimited(path string, max int) *File {
	f := NewFile(path)
	f.max, f.noFollow = max, true
	return f
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Read reads the whole file into buf (grown when too small), as Read does.
func (f *File) Read(buf []byte) ([]byte, error) {
	if f.h.fd >= 0 {
		b, err := pread(f.h.fd, buf, f.max)
		if err == nil {
			return b, nil
		}
		f.Close()
		buf = b
	}
	flags := 0
	if f.noFollow {
		flags = syscall.O_NOFOLLOW
	}
	fd, b, err := openRead(f.path, buf, f.max, flags)
	if err == nil {
		f.h.fd = fd
	}
	return b, err
}

// Close closes the descriptor; a later Read opens the file again.
func (f *File) Close() { f.h.close() }

// pread reads fd whole from offset 0: until a read returns less than the
// room left (the whole text, see File; a regular file's read is short only
// at its end) or nothing; past limit bytes (when above 0) it fails with
// ErrTooLarge.
func pread(fd int, buf []byte, limit int) ([]byte, error) {
	buf = buf[:0]
	for {
		if limit > 0 && len(buf) > limit {
			return buf[:0], ErrTooLarge
		}
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, max(cap(buf), 4096))...)[:len(buf)]
		}
		room := cap(buf) - len(buf)
		n, err := syscall.Pread(fd, buf[len(buf):cap(buf)], int64(len(buf)))
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return buf[:0], err
		}
		buf = buf[:len(buf)+n]
		if n < room {
			return buf, nil
		}
	}
}

// Held reads many files through Files kept open, by path — a process's
// /proc stat and io, read every cycle — and closes those not read between
// two Sweeps (processes gone). Past max files, a file is read as Read
// does, kept nowhere. A Held is not safe for concurrent use; its files are
// closed by Close, or when they are garbage.
type Held struct {
	max   int
	files map[string]*heldFile
	gen   uint64
}

type heldFile struct {
	*File
	gen uint64 // the Sweep generation it was last read in
}

// NewHeld returns a Held keeping at most max files open.
func NewHeld(max int) *Held {
	return &Held{max: max, files: map[string]*heldFile{}}
}

// Read reads the whole file at path into buf, as Read does.
func (h *Held) Read(path string, buf []byte) ([]byte, error) {
	hf := h.files[path]
	if hf == nil {
		if len(h.files) >= h.max {
			return Read(path, buf)
		}
		hf = &heldFile{File: NewFile(path)}
	}
	hf.gen = h.gen
	b, err := hf.Read(buf)
	if err != nil {
		hf.Close()
		delete(h.files, path)
		return b, err
	}
	h.files[path] = hf
	return b, nil
}

// Sweep closes the files not read since the last Sweep.
func (h *Held) Sweep() {
	for path, hf := range h.files {
		if hf.gen != h.gen {
			hf.Close()
			delete(h.files, path)
		}
	}
	h.gen++
}

// Open is how many files are held open.
func (h *Held) Open() int { return len(h.files) }

// Close closes every held file.
func (h *Held) Close() {
	for path, hf := range h.files {
		hf.Close()
		delete(h.files, path)
	}
}
