package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// Store is where event logs live: the local filesystem or an S3 bucket.
// Names are what a user writes: a local path, or s3://bucket/key.
type Store interface {
	// Stat describes name; a name that is only a prefix of other names (an
	// S3 "directory") is a directory. A missing name wraps fs.ErrNotExist.
	Stat(ctx context.Context, name string) (Entry, error)
	// List returns the direct children of directory dir, sorted by name.
	List(ctx context.Context, dir string) ([]Entry, error)
	// Open returns the stored bytes of name.
	Open(ctx context.Context, name string) (io.ReadCloser, error)
	// OpenRange returns the stored bytes of name from byte off on; past
	// the end there are none.
	OpenRange(ctx context.Context, name string, off int64) (io.ReadCloser, error)
}

// Entry is one file or directory of a Store.
type Entry struct {
	Path    string // full name in the store: local path or s3://bucket/key
	Name    string // last element of Path
	IsDir   bool
	Size    int64
	ModTime time.Time
	// Irregular, when set, says why the entry is neither a regular file
	// nor a directory (a named pipe, a device, a socket, a link that cannot
	// be followed): it is no log, and opening it could block or never end.
	Irregular error
}

// ErrIrregular is the error for a name that is not a regular file or a
// directory.
var ErrIrregular = errors.New("not a regular file")

// FileStore is the local filesystem as a Store.
type FileStore struct{}

// Stat implements Store.
func (FileStore) Stat(_ context.Context, name string) (Entry, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return Entry{}, err
	}
	e := fileEntry(name, fi)
	if e.Irregular != nil {
		return Entry{}, e.Irregular
	}
	return e, nil
}

// List implements Store.
func (FileStore) List(_ context.Context, dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(des))
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		fi, err := os.Stat(p) // follows symlinks, unlike de.Info
		if err != nil {
			if os.IsNotExist(err) {
				continue // removed since ReadDir, or a dangling link
			}
			// A link loop or an unreadable entry is this entry's problem,
			// not the listing's.
			entries = append(entries, Entry{Path: p, Name: de.Name(), Irregular: err})
			continue
		}
		entries = append(entries, fileEntry(p, fi))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// Open implements Store. Only a regular file opens: the open itself
// never blocks (a named pipe swapped in after listing would block a plain
// open until a writer comes) and a device is refused.
func (FileStore) Open(_ context.Context, name string) (io.ReadCloser, error) {
	return openRegular(name)
}

func openRegular(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w (%s)", name, ErrIrregular, kind(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenRange implements Store.
func (FileStore) OpenRange(_ context.Context, name string, off int64) (io.ReadCloser, error) {
	f, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s offset %d: %w", name, off, err)
	}
	return f, nil
}

func fileEntry(path string, fi os.FileInfo) Entry {
	e := Entry{Path: path, Name: filepath.Base(path), IsDir: fi.IsDir(), Size: fi.Size(), ModTime: fi.ModTime()}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		e.Irregular = fmt.Errorf("%s: %w (%s)", path, ErrIrregular, kind(fi.Mode()))
	}
	return e
}

// kind names a file mode that is not a regular file.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	default:
		return "mode " + m.String()
	}
}
