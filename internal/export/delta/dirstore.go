package delta

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DirStore keeps a table in a local directory. Exclusive writes go to a
// temporary file first and are then hard-linked into place: link(2) fails
// when the target exists, so two writers never both win a log version, and
// the commit appears complete or not at all.
type DirStore struct {
	Root string
}

// NewDirStore returns a store rooted at dir (created on first write).
func NewDirStore(dir string) *DirStore { return &DirStore{Root: dir} }

func (d *DirStore) path(key string) string {
	return filepath.Join(d.Root, filepath.FromSlash(key))
}

// Put implements Storage.
func (d *DirStore) Put(ctx context.Context, key string, data []byte, exclusive bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dst := d.path(key)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return fmt.Errorf("delta: %w", err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("delta: write %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("delta: sync %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("delta: close %s: %w", tmpName, err)
	}
	if !exclusive {
		if err := os.Rename(tmpName, dst); err != nil {
			return fmt.Errorf("delta: %w", err)
		}
		return nil
	}
	if err := os.Link(tmpName, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("delta: %s: %w", dst, ErrExist)
		}
		return fmt.Errorf("delta: %w", err)
	}
	return nil
}

// Get implements Storage.
func (d *DirStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(d.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("delta: %s: %w", d.path(key), ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	return b, nil
}

// List implements Storage. Temporary files of writers in flight are hidden.
func (d *DirStore) List(ctx context.Context, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(d.path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// Walk implements Sweeper.
func (d *DirStore) Walk(ctx context.Context) ([]Object, error) {
	var out []Object
	err := filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		rel, err := filepath.Rel(d.Root, p)
		if err != nil {
			return err
		}
		out = append(out, Object{Key: filepath.ToSlash(rel), Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("delta: walk %s: %w", d.Root, err)
	}
	return out, nil
}

// Delete implements Sweeper.
func (d *DirStore) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Remove(d.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delta: %w", err)
	}
	return nil
}
