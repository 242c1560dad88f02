package eventlog

import (
	"context"
	"fmt"
	"io"
)

// WalkFiles calls fn with each stored file of the log at path, local or on
// S3, for the History Server's raw-logs zip: the file itself, or every file
// of a log directory (hidden ones too, recursively, in name order), each
// with its name relative to the log's parent ("app-1.lz4",
// "eventlog_v2_app-1/events_1_app-1").
func WalkFiles(ctx context.Context, path string, opts OpenOptions, fn func(name string, r io.Reader) error) error {
	store, err := storeFor(path, opts)
	if err != nil {
		return err
	}
	e, err := store.Stat(ctx, path)
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	return walkEntry(ctx, store, e, e.Name, fn)
}

func walkEntry(ctx context.Context, store Store, e Entry, name string, fn func(string, io.Reader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !e.IsDir {
		r, err := store.Open(ctx, e.Path)
		if err != nil {
			return fmt.Errorf("eventlog: %w", err)
		}
		defer r.Close()
		return fn(name, r)
	}
	children, err := store.List(ctx, e.Path)
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	for _, c := range children {
		if err := walkEntry(ctx, store, c, name+"/"+c.Name, fn); err != nil {
			return err
		}
	}
	return nil
}
