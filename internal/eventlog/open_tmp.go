package eventlog

// Temporary stand-in for the codec branch's Open (plain, uncompressed logs
// only). Delete when merging codec.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

// OpenOptions configure Open.
type OpenOptions struct{}

// Part is one file of a (rolling) log.
type Part struct {
	Path string
	Size int64
}

// Log is one event log: a file or a rolling directory.
type Log struct {
	Path, Name          string
	Codec               codec.Codec
	Parts               []Part
	InProgress, Rolling bool
	Size                int64
	ModTime             time.Time
}

// Open finds the logs at path: a file, a rolling dir, or a dir of logs.
func Open(ctx context.Context, path string, opts OpenOptions) ([]*Log, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []*Log{fileLog(path, fi)}, nil
	}
	if strings.HasPrefix(filepath.Base(path), "eventlog_v2_") {
		l, err := rollingLog(path)
		if err != nil {
			return nil, err
		}
		return []*Log{l}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []*Log
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".crc") {
			continue
		}
		p := filepath.Join(path, n)
		if e.IsDir() {
			if strings.HasPrefix(n, "eventlog_v2_") {
				l, err := rollingLog(p)
				if err != nil {
					return nil, err
				}
				out = append(out, l)
			}
			continue
		}
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		out = append(out, fileLog(p, fi))
	}
	return out, nil
}

func fileLog(path string, fi os.FileInfo) *Log {
	return &Log{Path: path, Name: filepath.Base(path), Codec: codec.FromName(filepath.Base(path)),
		Parts:      []Part{{Path: path, Size: fi.Size()}},
		InProgress: strings.HasSuffix(path, ".inprogress"), Size: fi.Size(), ModTime: fi.ModTime()}
}

func rollingLog(dir string) (*Log, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	l := &Log{Path: dir, Name: filepath.Base(dir), Rolling: true, InProgress: true}
	type numbered struct {
		n int
		p Part
	}
	var parts []numbered
	for _, e := range ents {
		n := e.Name()
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		switch {
		case strings.HasPrefix(n, "appstatus_"):
			l.InProgress = strings.HasSuffix(n, ".inprogress")
		case strings.HasPrefix(n, "events_"):
			rest := strings.TrimPrefix(n, "events_")
			i := strings.IndexByte(rest, '_')
			k, err := strconv.Atoi(rest[:max(i, 0)])
			if err != nil {
				return nil, fmt.Errorf("eventlog: %s: bad rolling file name %q", dir, n)
			}
			parts = append(parts, numbered{k, Part{Path: filepath.Join(dir, n), Size: fi.Size()}})
			l.Codec = codec.FromName(n)
			l.Size += fi.Size()
			if fi.ModTime().After(l.ModTime) {
				l.ModTime = fi.ModTime()
			}
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].n < parts[j].n })
	for _, p := range parts {
		l.Parts = append(l.Parts, p.p)
	}
	return l, nil
}

// Reader reads the decoded JSON lines of a log.
type Reader struct {
	parts     []io.Reader
	closers   []io.Closer
	truncated bool
}

// NewReader opens the parts of l in order, decoding each with l's codec.
func (l *Log) NewReader(ctx context.Context) (*Reader, error) {
	r := &Reader{}
	for _, p := range l.Parts {
		f, err := os.Open(p.Path)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.closers = append(r.closers, f)
		d, err := codec.NewReader(codec.FromName(filepath.Base(p.Path)), f)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.closers = append(r.closers, d)
		r.parts = append(r.parts, d)
	}
	return r, nil
}

// Read reads the decoded bytes; a stream cut inside a block ends the log.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.parts) > 0 {
		n, err := r.parts[0].Read(p)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			r.truncated = true
			err = io.EOF
		}
		if err == io.EOF {
			r.parts = r.parts[1:]
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
	return 0, io.EOF
}

// Truncated tells whether a compressed stream stopped inside a block.
func (r *Reader) Truncated() bool { return r.truncated }

// Close closes the decoders and files.
func (r *Reader) Close() error {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i].Close()
	}
	return nil
}
