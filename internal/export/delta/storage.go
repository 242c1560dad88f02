package delta

import (
	"context"
	"errors"
	"time"
)

// Storage holds the files of one table. Keys are slash-separated paths
// relative to the table root ("_delta_log/00000000000000000000.json").
type Storage interface {
	// Put writes data under key. With exclusive set it fails with an error
	// wrapping ErrExist when key already exists, and no reader ever sees
	// a partly written object.
	Put(ctx context.Context, key string, data []byte, exclusive bool) error
	// Get returns the whole object; a missing key wraps ErrNotExist.
	Get(ctx context.Context, key string) ([]byte, error)
	// List returns the names (relative to prefix's directory, sorted) of
	// the objects directly under the directory prefix ("_delta_log/").
	List(ctx context.Context, dir string) ([]string, error)
}

var (
	// ErrExist reports that an exclusive Put lost: the key already exists.
	ErrExist = errors.New("already exists")
	// ErrNotExist reports a missing key.
	ErrNotExist = errors.New("does not exist")
)

// Object is one stored file, as maintenance sees it.
type Object struct {
	Key     string // relative to the table root, slash-separated
	Size    int64
	ModTime time.Time
}

// Sweeper is a Storage that maintenance (Vacuum, CleanLog) can walk and
// delete from. DirStore and S3Store are.
type Sweeper interface {
	Storage
	// Walk returns every object under the table root, the temporary files
	// of writers (in flight or crashed) included.
	Walk(ctx context.Context) ([]Object, error)
	// Delete removes key; a key already gone is not an error.
	Delete(ctx context.Context, key string) error
}
