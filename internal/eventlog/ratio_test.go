package eventlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// bomb writes a zstd file that decodes to 256 MiB, thousands of times its
// stored size.
func bomb(t *testing.T) (path string, stored int) {
	t.Helper()
	line := `{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}` + "\n"
	var raw bytes.Buffer
	w, err := zstd.NewWriter(&raw, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat(line, 1<<14))
	for written := 0; written < 256<<20; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "app-bomb.zstd")
	if err := os.WriteFile(path, raw.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, raw.Len()
}

// TestReaderLimitRatio: a reader with the ratio limit refuses a
// decompression bomb after 64 MiB decoded rather than at its end; a real
// log passes.
func TestReaderLimitRatio(t *testing.T) {
	path, stored := bomb(t)
	logs, err := Open(context.Background(), path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := logs[0].NewReader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r.LimitRatio(0))
	if !errors.Is(err, ErrRatio) {
		t.Fatalf("got %v after %d bytes, want ErrRatio", err, n)
	}
	if n > 128<<20 {
		t.Errorf("decoded %d bytes before refusing, want about 64 MiB", n)
	}
	t.Logf("%d stored bytes: %v", stored, err)

	for _, path := range []string{filepath.Join("testdata", "rotation"), filepath.Join("testdata", "compact", "eventlog_v2_app-compact")} {
		_, want, _, err := readLog(t, path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		logs, err := Open(context.Background(), path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := logs[0].NewReader(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r.LimitRatio(1))
		r.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s under a 1× limit: got %d bytes, %v; want its %d bytes (under the 64 MiB floor)", path, len(got), err, len(want))
		}
	}
}
