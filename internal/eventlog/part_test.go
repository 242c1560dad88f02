package eventlog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// countingStore counts the stored bytes read through a Store.
type countingStore struct {
	Store
	read atomic.Int64
}

func (c *countingStore) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return c.OpenRange(ctx, name, 0)
}

func (c *countingStore) OpenRange(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	rc, err := c.Store.OpenRange(ctx, name, off)
	if err != nil {
		return nil, err
	}
	return &countedBody{ReadCloser: rc, n: &c.read}, nil
}

type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// tailLog reads every part of l with ReadPartInto in turns of random
// limits until the last part reports eof, into one buffer reused from turn
// to turn as the ingester's. Each turn is a fresh call that gets
// only the position of the turn before, passed through JSON as a server
// restart would; at every part but the last, reading goes on at the next
// part once eof is seen, as the ingester does.
func tailLog(t *testing.T, l *Log, rng *rand.Rand, part int, pos PartPos, out *bytes.Buffer) (int, PartPos, int) {
	t.Helper()
	turns := 0
	var buf []byte
	for {
		limit := int64(1 + rng.IntN(16<<10))
		if rng.IntN(50) == 0 {
			limit = 1 << 30
		}
		data, next, eof, err := l.ReadPartInto(context.Background(), part, pos, limit, buf)
		if int64(cap(buf)) >= limit && len(data) > 0 && &data[0] != &buf[:1][0] {
			t.Fatalf("part %d at %+v limit %d: read into a new buffer, not the %d bytes given", part, pos, limit, cap(buf))
		}
		buf = data[:0]
		turns++
		if err != nil {
			t.Fatalf("part %d at %+v: %v", part, pos, err)
		}
		if int64(len(data)) > limit || next.Decoded != pos.Decoded+int64(len(data)) || next.CompDecoded > next.Decoded {
			t.Fatalf("part %d at %+v limit %d: got %d bytes and position %+v", part, pos, limit, len(data), next)
		}
		out.Write(data)
		b, _ := json.Marshal(next)
		pos = PartPos{}
		if err := json.Unmarshal(b, &pos); err != nil {
			t.Fatal(err)
		}
		if !eof {
			continue
		}
		if part == len(l.Parts)-1 {
			return part, pos, turns
		}
		part, pos = part+1, PartPos{}
	}
}

func openOne(t *testing.T, path string, opts OpenOptions) *Log {
	t.Helper()
	logs, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 {
		t.Fatalf("Open(%s): got %d logs, want 1", path, len(logs))
	}
	return logs[0]
}

// TestReadPartTurns reads every shared compressed log (single files, the
// in-progress forms, rolling directories), a plain log and the gzip
// rotation fixture in many turns of random size: the bytes are exactly
// those of one full read.
func TestReadPartTurns(t *testing.T) {
	dir := sparktest.Path(t, "compressed")
	paths := []string{
		sparktest.Path(t, "spark-events", "local-1430917381534"),
		filepath.Join(dir, "rolling-lz4", "eventlog_v2_app-20200706201101-0003"),
		filepath.Join(dir, "rolling-zstd", "eventlog_v2_app-20200706201101-0003"),
		filepath.Join("testdata", "rotation"),
		filepath.Join("testdata", "compact", "eventlog_v2_app-compact"),
		filepath.Join(dir, "local-1642039451826.inprogress"),
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, m := range matches {
		if codec.FromName(m) != codec.None {
			paths = append(paths, m)
		}
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			l := openOne(t, path, OpenOptions{})
			want, _, err := readAll(t, l)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(l.Size), 2))
			var got bytes.Buffer
			_, _, turns := tailLog(t, l, rng, 0, PartPos{}, &got)
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("got %d bytes in %d turns, want the %d bytes of one read", got.Len(), turns, len(want))
			}
			t.Logf("%d bytes in %d turns over %d parts", got.Len(), turns, len(l.Parts))
		})
	}
}

// growingLog copies the first size bytes of src to an in-progress log
// in dir and returns it opened through store.
func growingLog(t *testing.T, dst string, src []byte, size int, store Store) *Log {
	t.Helper()
	if err := os.WriteFile(dst, src[:size], 0o644); err != nil {
		t.Fatal(err)
	}
	return openOne(t, dst, OpenOptions{Store: store})
}

// maxGap is the largest compressed distance between restart points of a
// whole stream: the most a resumed read may go back.
func maxGap(t *testing.T, c codec.Codec, data []byte) int64 {
	t.Helper()
	r, err := codec.Resume(c, bytes.NewReader(data), codec.Restart{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var gap, last int64
	buf := make([]byte, 1<<10)
	for {
		_, err := r.Read(buf)
		if at := r.Restart(); at.Comp != last {
			gap, last = max(gap, at.Comp-last), at.Comp
		}
		if err != nil {
			return max(gap, int64(len(data))-last)
		}
	}
}

// growingSource is the log the growing tests write in codec c: its file
// name and stored bytes.
func growingSource(t *testing.T, c codec.Codec) (name string, src []byte) {
	t.Helper()
	name = "local-1642039451826"
	if c == codec.None {
		return name, readFile(t, sparktest.Path(t, "spark-events", name))
	}
	name += "." + string(c)
	return name, readFile(t, sparktest.Path(t, "compressed", name))
}

// TestReadPartGrowing tails a compressed log while it grows (the file cut
// at random points, in-progress): every turn delivers a prefix of the full
// decode without error, and the log read to its full length gives all of it.
func TestReadPartGrowing(t *testing.T) {
	for _, c := range []codec.Codec{codec.LZ4, codec.Snappy, codec.LZF, codec.ZSTD, codec.None} {
		name, src := growingSource(t, c)
		full := readFile(t, sparktest.Path(t, "spark-events", "local-1642039451826"))
		t.Run(string(c), func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), name+".inprogress")
			store := &countingStore{Store: FileStore{}}
			rng := rand.New(rand.NewPCG(uint64(len(src)), 3))
			var got bytes.Buffer
			var pos PartPos
			var readNew, readOld int64
			for size := 0; ; size = min(len(src), size+1+rng.IntN(max(6000, len(src)/15))) {
				l := growingLog(t, dst, src, size, store)
				before := store.read.Load()
				_, pos, _ = tailLog(t, l, rng, 0, pos, &got)
				n := store.read.Load() - before
				readNew += n
				readOld += int64(size)
				if !bytes.HasPrefix(full, got.Bytes()) {
					t.Fatalf("size %d: got %d bytes, not a prefix of the full decode", size, got.Len())
				}
				if size == len(src) {
					break
				}
			}
			if !bytes.Equal(got.Bytes(), full) {
				t.Fatalf("got %d bytes, want all %d", got.Len(), len(full))
			}
			t.Logf("stored bytes read: %d resuming, %d re-reading each part whole", readNew, readOld)
		})
	}
}

// TestReadPartReadsNewBytes grows compressed logs in steps and reads each
// step in one turn: the stored bytes a turn reads are what grew plus at
// most one block or frame (the largest distance between restart points).
func TestReadPartReadsNewBytes(t *testing.T) {
	for _, c := range []codec.Codec{codec.LZ4, codec.Snappy, codec.LZF, codec.ZSTD, codec.None} {
		name, src := growingSource(t, c)
		t.Run(string(c), func(t *testing.T) {
			gap := int64(0)
			if c != codec.None {
				gap = maxGap(t, c, src)
			}
			dst := filepath.Join(t.TempDir(), name+".inprogress")
			store := &countingStore{Store: FileStore{}}
			var pos PartPos
			var total, whole int64
			prev := 0
			for size := 4096; ; size = min(len(src), size+4096) {
				l := growingLog(t, dst, src, size, store)
				before := store.read.Load()
				_, next, eof, err := l.ReadPart(context.Background(), 0, pos, 1<<30)
				if err != nil || !eof {
					t.Fatalf("size %d: got eof %v, error %v; want eof", size, eof, err)
				}
				n := store.read.Load() - before
				if limit := int64(size-prev) + gap; n > limit {
					t.Fatalf("size %d (was %d): read %d stored bytes, want at most %d (new bytes + one block of %d)", size, prev, n, limit, gap)
				}
				total += n
				whole += int64(size)
				pos, prev = next, size
				if size == len(src) {
					break
				}
			}
			if total*2 > whole {
				t.Errorf("read %d stored bytes in all, want well under the %d of re-reading the part each turn", total, whole)
			}
			t.Logf("read %d stored bytes, %d re-reading whole (largest block %d)", total, whole, gap)
		})
	}
}

// TestReadPartErrors: bad positions and damaged blocks are errors naming
// the file (and, for damage, the offset); a finished log cut in a block is
// an error, an in-progress one is not.
func TestReadPartErrors(t *testing.T) {
	ctx := context.Background()
	src := readFile(t, sparktest.Path(t, "compressed", "local-1642039451826.lz4"))
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.lz4")
	if err := os.WriteFile(cut, src[:len(src)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	l := openOne(t, cut, OpenOptions{})
	if _, _, _, err := l.ReadPart(ctx, 0, PartPos{}, 1<<30); err == nil || !bytes.Contains([]byte(err.Error()), []byte(cut+": lz4: offset ")) {
		t.Errorf("finished log cut in a block: got error %v, want one naming %s and an lz4 offset", err, cut)
	}
	l.InProgress = true
	if data, _, eof, err := l.ReadPart(ctx, 0, PartPos{}, 1<<30); err != nil || !eof || len(data) == 0 {
		t.Errorf("in-progress log cut in a block: got %d bytes, eof %v, error %v; want the complete blocks, eof", len(data), eof, err)
	}
	for _, pos := range []PartPos{{Decoded: -1}, {Decoded: 5, CompDecoded: 6}, {Comp: -3}} {
		if _, _, _, err := l.ReadPart(ctx, 0, pos, 10); err == nil || !bytes.Contains([]byte(err.Error()), []byte(cut)) {
			t.Errorf("position %+v: got error %v, want one naming %s", pos, err, cut)
		}
	}
	if _, _, _, err := l.ReadPart(ctx, 1, PartPos{}, 10); err == nil {
		t.Error("part 1 of 1: got no error")
	}
	// A position inside a block is not a restart point.
	if _, _, _, err := l.ReadPart(ctx, 0, PartPos{Decoded: 100, Comp: 100, CompDecoded: 50}, 10); err == nil || !bytes.Contains([]byte(err.Error()), []byte(cut+": lz4: offset 100: ")) {
		t.Errorf("position inside a block: got error %v, want lz4 offset 100 in %s", err, cut)
	}
}
