package eventlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// memStore holds one file in memory.
type memStore struct {
	name string
	data []byte
}

func (m memStore) Stat(_ context.Context, name string) (Entry, error) {
	if name != m.name {
		return Entry{}, fs.ErrNotExist
	}
	return Entry{Path: name, Name: filepath.Base(name), Size: int64(len(m.data)), ModTime: time.Unix(0, 0)}, nil
}

func (m memStore) List(context.Context, string) ([]Entry, error) { return nil, fs.ErrNotExist }

func (m memStore) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return m.OpenRange(ctx, name, 0)
}

func (m memStore) OpenRange(_ context.Context, name string, off int64) (io.ReadCloser, error) {
	if name != m.name {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(m.data[min(off, int64(len(m.data))):])), nil
}

// FuzzReadPart resumes arbitrary bytes of every codec at arbitrary
// positions: never a panic, never more than limit bytes, a position that
// only moves forward, and errors that name the file and, from a codec, an
// offset at or past the restart point.
func FuzzReadPart(f *testing.F) {
	for _, name := range []string{"local-1642039451826.lz4", "local-1642039451826.snappy", "local-1642039451826.lzf", "local-1642039451826.zstd"} {
		b, err := os.ReadFile(sparktest.Path(f, "compressed", name))
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 4<<10)]
		c := codec.FromName(name)
		idx := 0
		for i, cc := range codec.All {
			if cc == c {
				idx = i
			}
		}
		f.Add(b, uint8(idx), int64(0), int64(0), int64(0), int64(4096), true)
		// The first restart point past the start, found by a real read.
		r, _ := codec.Resume(c, bytes.NewReader(b), codec.Restart{})
		io.CopyN(io.Discard, r, 1000)
		at := r.Restart()
		f.Add(b, uint8(idx), at.Decoded+1000, at.Comp, at.Decoded, int64(1<<20), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, codecIdx uint8, decoded, comp, compDecoded, limit int64, inProgress bool) {
		c := codec.All[int(codecIdx)%len(codec.All)]
		name := "/fuzz/app-1"
		if c != codec.None {
			name += "." + string(c)
		}
		l := &Log{Path: name, Name: filepath.Base(name), Codec: c, InProgress: inProgress,
			Parts: []Part{{Path: name, Size: int64(len(data)), Codec: c}}, store: memStore{name: name, data: data}}
		limit = limit % (64 << 20) // bounds what one input may decode to
		pos := PartPos{Decoded: decoded % (1 << 40), Comp: comp % (1 << 40), CompDecoded: compDecoded % (1 << 40)}
		got, next, _, err := l.ReadPart(context.Background(), 0, pos, limit)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error %q does not name %s", err, name)
			}
			var e *codec.Error
			if errors.As(err, &e) && (e.Offset < pos.Comp || !strings.Contains(err.Error(), "offset")) {
				t.Fatalf("error %q: offset %d before the restart point %d", err, e.Offset, pos.Comp)
			}
			return
		}
		if int64(len(got)) > max(limit, 0) || next.Decoded != pos.Decoded+int64(len(got)) ||
			next.CompDecoded > next.Decoded || (c != codec.None && next.Comp < pos.Comp) {
			t.Fatalf("at %+v limit %d: got %d bytes, next %+v", pos, limit, len(got), next)
		}
	})
}
