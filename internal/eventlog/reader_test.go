package eventlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestReaderSmallReads reads a rolling log a few bytes at a time: part
// boundaries must neither lose nor add bytes.
func TestReaderSmallReads(t *testing.T) {
	logs, err := Open(context.Background(), sparktest.Path(t, "compressed", "rolling-lz4", "eventlog_v2_app-20200706201101-0003"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := logs[0].NewReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got bytes.Buffer
	buf := make([]byte, 7)
	for {
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := readFile(t, sparktest.Path(t, "spark-events", "app-20200706201101-0003")); !bytes.Equal(got.Bytes(), want) {
		t.Errorf("got %d bytes, want %d", got.Len(), len(want))
	}
}

func TestReaderEmptyInProgress(t *testing.T) {
	for _, name := range []string{"app-1.inprogress", "app-1.lz4.inprogress", "app-1.zstd.inprogress"} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		_, got, r, err := readLog(t, path, OpenOptions{})
		if err != nil || len(got) != 0 || r.Truncated() {
			t.Errorf("%s: got %d bytes, error %v, Truncated %v; want nothing, no error, false", name, len(got), err, r.Truncated())
		}
	}
}

func TestReaderCancel(t *testing.T) {
	logs, err := Open(context.Background(), sparktest.Path(t, "spark-events", "local-1430917381534"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, err := logs[0].NewReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := r.Read(make([]byte, 10)); !errors.Is(err, context.Canceled) {
		t.Errorf("got error %v after cancel, want context.Canceled", err)
	}
}

func benchmarkLog(b *testing.B, path string) {
	logs, err := Open(context.Background(), path, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		r, err := logs[0].NewReader(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		size = n
		b.SetBytes(size)
	}
}

// BenchmarkReader reads real logs through Open and the Reader (decoded
// bytes per second).
func BenchmarkReader(b *testing.B) {
	b.Run("big-zstd", func(b *testing.B) {
		benchmarkLog(b, sparktest.Path(b, "big", "application_1701368813061_0008.zstd"))
	})
	b.Run("rolling-lz4", func(b *testing.B) {
		benchmarkLog(b, sparktest.Path(b, "compressed", "rolling-lz4", "eventlog_v2_app-20200706201101-0003"))
	})
	b.Run("plain", func(b *testing.B) {
		benchmarkLog(b, sparktest.Path(b, "spark-events", "local-1642039451826"))
	})
}
