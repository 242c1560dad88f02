package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sparkdx/sparkdx/internal/eventlog"
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

// TestReplayRefusesDecompressionBomb: a zstd file that decodes to
// thousands of times its size is refused, naming the file and the sizes,
// after 64 MiB decoded rather than at its end (eventlog's
// TestReaderLimitRatio checks the limit itself).
func TestReplayRefusesDecompressionBomb(t *testing.T) {
	path, stored := bomb(t)
	logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := Log(context.Background(), logs[0], Options{})
	if !errors.Is(err, eventlog.ErrRatio) || !strings.Contains(err.Error(), "app-bomb.zstd") {
		t.Fatalf("got %v, want ErrRatio naming the file", err)
	}
	if st != nil && st.Bytes > 128<<20 {
		t.Errorf("decoded %d bytes before refusing, want about 64 MiB", st.Bytes)
	}
	t.Logf("%d stored bytes: %v", stored, err)
}
