package delta

import (
	"context"
	"errors"
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
