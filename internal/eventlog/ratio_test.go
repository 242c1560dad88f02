package eventlog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// bomb is a zstd file of 22 KiB that decodes to 256 MiB, 12,000 times its
// stored size (eventlog/testdata/README.md).
func bomb(t *testing.T) (path string, stored int) {
	t.Helper()
	path = filepath.Join("testdata", "app-bomb.zstd")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, int(fi.Size())
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
	n, err := io.Copy(io.Discard, r.LimitRatio(r, 0))
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
		got, err := io.ReadAll(r.LimitRatio(r, 1))
		r.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s under a 1× limit: got %d bytes, %v; want its %d bytes (under the 64 MiB floor)", path, len(got), err, len(want))
		}
	}
}
