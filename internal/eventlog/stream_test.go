package eventlog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestOpenStream: a log piped in (no name to declare its codec) reads as
// exactly the same bytes as the log opened as a file, in every codec Spark
// writes.
func TestOpenStream(t *testing.T) {
	ctx := context.Background()
	dir := sparktest.Path(t, "compressed")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{sparktest.Path(t, "spark-events", "local-1430917381534")} // plain
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), inProgressSuffix) {
			continue // a stream is never in progress: a cut one is an error (below)
		}
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	seen := map[codec.Codec]bool{}
	for _, path := range paths {
		name := filepath.Base(path)
		logs, err := Open(ctx, path, OpenOptions{})
		if err != nil || len(logs) != 1 {
			continue
		}
		want, _, err := readAll(t, logs[0])
		if err != nil {
			continue // a deliberately broken file: the stream's errors are checked below
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := OpenStream("-", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if l.Codec != logs[0].Codec {
			t.Errorf("%s: stream codec %q, the file's name says %q", name, l.Codec, logs[0].Codec)
		}
		got, _, err := readAll(t, l)
		if err != nil {
			t.Fatalf("%s as a stream: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s as a stream: got %d bytes, want the file's %d", name, len(got), len(want))
		}
		seen[l.Codec] = true
	}
	for _, c := range []codec.Codec{codec.None, codec.LZ4, codec.LZF, codec.Snappy, codec.ZSTD} {
		if !seen[c] {
			t.Errorf("no %q log in %s read as a stream", c, dir)
		}
	}
	// A cut stream is an error at the offset where it ends.
	cut, err := os.ReadFile(filepath.Join(dir, "local-1642039451826-cut.zstd"+inProgressSuffix))
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenStream("-", bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := readAll(t, l); err == nil || !strings.Contains(err.Error(), "offset") {
		t.Errorf("cut zstd stream: got %v, want an error at an offset", err)
	}
	// A stream is read once.
	l, err = OpenStream("-", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := readAll(t, l); err != nil {
		t.Fatalf("empty stream: %v", err)
	}
	if _, _, err := readAll(t, l); err == nil || !strings.Contains(err.Error(), "read once") {
		t.Errorf("second read: got %v, want 'read once'", err)
	}
}
