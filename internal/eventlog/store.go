package eventlog

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
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
}

// FileStore is the local filesystem as a Store.
type FileStore struct{}

// Stat implements Store.
func (FileStore) Stat(_ context.Context, name string) (Entry, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return Entry{}, err
	}
	return fileEntry(name, fi), nil
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
			return nil, err
		}
		entries = append(entries, fileEntry(p, fi))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// Open implements Store.
func (FileStore) Open(_ context.Context, name string) (io.ReadCloser, error) {
	return os.Open(name)
}

// OpenRange implements Store.
func (FileStore) OpenRange(_ context.Context, name string, off int64) (io.ReadCloser, error) {
	f, err := os.Open(name)
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
	return Entry{Path: path, Name: filepath.Base(path), IsDir: fi.IsDir(), Size: fi.Size(), ModTime: fi.ModTime()}
}
