package eventlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

// OpenStream is the one event log a stream holds (standard input, for
// `sparkdx analyze -`), readable once. A stream has no file name to
// declare its codec, so the codec is recognised from its first bytes:
// plain JSON lines or any codec Spark writes. name labels the log in
// errors and reports.
func OpenStream(name string, r io.Reader) (*Log, error) {
	br := bufio.NewReaderSize(r, readBufferSize)
	head, err := br.Peek(codec.SniffLen)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("eventlog: %s: %w", name, err)
	}
	c := codec.Sniff(head)
	return &Log{
		Path: name, Name: name, Codec: c,
		Parts:   []Part{{Path: name, Codec: c}},
		ModTime: time.Now(),
		store:   &streamStore{name: name, r: br},
	}, nil
}

// streamStore serves the one name of a stream, once.
type streamStore struct {
	name   string
	r      io.Reader
	opened bool
}

func (s *streamStore) Stat(_ context.Context, name string) (Entry, error) {
	if name != s.name {
		return Entry{}, fmt.Errorf("%s: not the stream %s", name, s.name)
	}
	return Entry{Path: s.name, Name: s.name}, nil
}

func (s *streamStore) List(_ context.Context, dir string) ([]Entry, error) {
	return nil, fmt.Errorf("%s: a stream is no directory", dir)
}

func (s *streamStore) Open(_ context.Context, name string) (io.ReadCloser, error) {
	if name != s.name {
		return nil, fmt.Errorf("%s: not the stream %s", name, s.name)
	}
	if s.opened {
		return nil, fmt.Errorf("%s: a stream is read once", name)
	}
	s.opened = true
	return io.NopCloser(s.r), nil
}

func (s *streamStore) OpenRange(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	if off != 0 {
		return nil, fmt.Errorf("%s offset %d: a stream is read from its start only", name, off)
	}
	return s.Open(ctx, name)
}
