// Package eventlog finds and reads Spark event logs: it opens them (a
// file, a rolling directory, a Databricks-style rotation, a directory of
// logs, s3://, a stream) and reads their decoded bytes in order, whatever
// Spark's codec (package codec), a whole log or a part from where an
// earlier read stopped. What the bytes mean is not its business: package
// sparkevent decodes the lines and package replay applies the events.
package eventlog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/s3"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

// Log is one application attempt's event log: one file, or the ordered parts
// of a rolling directory or of a Databricks-style rotation.
type Log struct {
	Path       string      // what Open found: file path, directory, or s3://bucket/key
	Name       string      // base name (file or directory)
	Codec      codec.Codec // codec of the parts (of the last part if they differ)
	Parts      []Part      // in read order
	InProgress bool        // `.inprogress` file, or rolling dir whose appstatus file is `.inprogress`
	Rolling    bool
	Size       int64     // total stored bytes
	ModTime    time.Time // newest part

	store Store
}

// Part is one stored file of a Log.
type Part struct {
	Path    string
	Size    int64
	ModTime time.Time
	Codec   codec.Codec // from the file name; the Reader checks it against the content
	Index   int         // events_<Index>_ of a rolling log; position otherwise
	Compact bool        // a rolling log's `.compact` file
}

// OpenOptions configures Open.
type OpenOptions struct {
	// S3 reaches s3:// paths; empty fields default from the environment.
	S3 s3.Config
	// Store, when set, serves every path (tests, other backends).
	Store Store
	// Skipped, when set, is told about each directory entry Open passes
	// over while listing a directory of logs, and why.
	Skipped func(path string, reason error)
	// Keep, when set, is asked about each entry of a directory of logs by
	// its base name; an entry it refuses is passed over before anything
	// under it is listed or read (sparkdx serve's --shard).
	Keep func(name string) bool
}

// Errors an OpenOptions.Skipped callback receives.
var (
	ErrNotLog    = errors.New("not an event log name (Spark's: no extension but a codec's, .inprogress or .compact; or JSON lines: .ndjson, .jsonl)")
	ErrHidden    = errors.New("hidden or checksum file")
	ErrNoLogsDir = errors.New("directory holds no event log layout")
)

// Open finds the event logs at path: a single log file, a rolling
// `eventlog_v2_<appId>` directory, a Databricks-style rotation directory
// (`eventlog` plus `eventlog-YYYY-MM-DD--HH-MM[.gz]`), or a directory of
// any of these (one Log per entry, sorted by name); path may be an
// s3://bucket/key-or-prefix URL. Open reads names and sizes only; the
// content is checked by Log.NewReader.
func Open(ctx context.Context, path string, opts OpenOptions) ([]*Log, error) {
	store, err := storeFor(path, opts)
	if err != nil {
		return nil, err
	}
	e, err := store.Stat(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	if !e.IsDir {
		return []*Log{fileLog(store, e)}, nil
	}
	entries, err := store.List(ctx, e.Path)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	if l, err := dirLog(store, e, entries); l != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return []*Log{l}, nil
	}
	return openDir(ctx, store, entries, opts)
}

// storeFor returns the Store that serves path.
func storeFor(path string, opts OpenOptions) (Store, error) {
	switch {
	case opts.Store != nil:
		return opts.Store, nil
	case s3.IsURL(path):
		s3store, err := NewS3Store(opts.S3.WithEnv(nil))
		if err != nil {
			return nil, fmt.Errorf("eventlog: %w", err)
		}
		return s3store, nil
	}
	return FileStore{}, nil
}

// openDir opens each entry of a directory of logs.
func openDir(ctx context.Context, store Store, entries []Entry, opts OpenOptions) ([]*Log, error) {
	skip := func(path string, reason error) {
		if opts.Skipped != nil {
			opts.Skipped(path, reason)
		}
	}
	var logs []*Log
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if hiddenName(e.Name) {
			skip(e.Path, ErrHidden)
			continue
		}
		if e.Irregular != nil {
			skip(e.Path, e.Irregular)
			continue
		}
		if !e.IsDir {
			if !logFileName(e.Name) {
				skip(e.Path, ErrNotLog)
				continue
			}
			if opts.Keep == nil || opts.Keep(e.Name) {
				logs = append(logs, fileLog(store, e))
			}
			continue
		}
		if opts.Keep != nil && !opts.Keep(e.Name) {
			continue
		}
		children, err := store.List(ctx, e.Path)
		if err != nil {
			skip(e.Path, err) // one unreadable directory does not stop the scan
			continue
		}
		children = slices.DeleteFunc(children, func(c Entry) bool { return c.Irregular != nil })
		l, err := dirLog(store, e, children)
		switch {
		case err != nil:
			skip(e.Path, err)
		case l == nil:
			skip(e.Path, ErrNoLogsDir)
		default:
			logs = append(logs, l)
		}
	}
	return logs, nil
}

// dirLog reads directory e as one log: rolling or rotation. It returns nil
// and no error for a directory that is neither.
func dirLog(store Store, e Entry, entries []Entry) (*Log, error) {
	if strings.HasPrefix(e.Name, rollingDirPrefix) {
		return rollingLog(store, e, entries)
	}
	if isRotationDir(entries) {
		return rotationLog(store, e, entries)
	}
	return nil, nil
}

func fileLog(store Store, e Entry) *Log {
	c := codec.FromName(e.Name)
	l := &Log{
		Path: e.Path, Name: e.Name, Codec: c,
		Parts:      []Part{{Path: e.Path, Size: e.Size, ModTime: e.ModTime, Codec: c}},
		InProgress: strings.HasSuffix(e.Name, inProgressSuffix),
		store:      store,
	}
	l.sum()
	return l
}

// sum sets Size, ModTime and Codec from the parts.
func (l *Log) sum() {
	l.Size, l.ModTime = 0, time.Time{}
	for _, p := range l.Parts {
		l.Size += p.Size
		if p.ModTime.After(l.ModTime) {
			l.ModTime = p.ModTime
		}
	}
	if n := len(l.Parts); n > 0 {
		l.Codec = l.Parts[n-1].Codec
	}
}

const inProgressSuffix = ".inprogress"

// hiddenName matches what Spark's history provider and Hadoop ignore:
// dot and underscore files (Hadoop's .crc side files, _SUCCESS) and stray
// .crc files.
func hiddenName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || strings.HasSuffix(name, ".crc")
}

// logFileName reports whether a file in a directory of logs is named like
// one: Spark sanitises dots out of application ids, so a log name has no
// extension other than a codec's, `.inprogress` and `.compact`; a log
// saved by hand as JSON lines (`.ndjson`, `.jsonl`) is one too, as
// `sparkdx analyze` reads it when named alone.
func logFileName(name string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(name, inProgressSuffix), compactSuffix)
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return base != ""
	}
	ext := strings.ToLower(base[i+1:])
	_, ok := codec.FromExt(ext)
	return (ok || ext == "ndjson" || ext == "jsonl") && !strings.Contains(base[:i], ".")
}
