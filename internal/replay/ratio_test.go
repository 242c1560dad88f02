package replay

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
)

// bomb is a zstd file of 22 KiB that decodes to 256 MiB, 12,000 times its
// stored size (eventlog/testdata/README.md).
func bomb(t *testing.T) (path string, stored int) {
	t.Helper()
	path = filepath.Join("..", "eventlog", "testdata", "app-bomb.zstd")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, int(fi.Size())
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
	// Plain, and wrapped as sparkdx analyze wraps it for its progress bar
	// on a terminal: the wrap must not lift the limit.
	wraps := map[string]func(r *eventlog.Reader) io.Reader{"plain": nil,
		"progress": func(r *eventlog.Reader) io.Reader { return struct{ io.Reader }{r} }}
	for name, wrap := range wraps {
		_, st, err := Log(context.Background(), logs[0], Options{Wrap: wrap})
		if !errors.Is(err, eventlog.ErrRatio) || !strings.Contains(err.Error(), "app-bomb.zstd") {
			t.Fatalf("%s: got %v, want ErrRatio naming the file", name, err)
		}
		if st != nil && st.Bytes > 128<<20 {
			t.Errorf("%s: decoded %d bytes before refusing, want about 64 MiB", name, st.Bytes)
		}
		t.Logf("%s: %d stored bytes: %v", name, stored, err)
	}
}
