package replay

import (
	"context"
	"errors"
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
	_, st, err := Log(context.Background(), logs[0], Options{})
	if !errors.Is(err, eventlog.ErrRatio) || !strings.Contains(err.Error(), "app-bomb.zstd") {
		t.Fatalf("got %v, want ErrRatio naming the file", err)
	}
	if st != nil && st.Bytes > 128<<20 {
		t.Errorf("decoded %d bytes before refusing, want about 64 MiB", st.Bytes)
	}
	t.Logf("%d stored bytes: %v", stored, err)
}
