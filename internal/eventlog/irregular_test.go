package eventlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenDirSkipsIrregularFiles: a named pipe, a link to /dev/zero and a
// link loop in a log directory are skipped with their reason; the scan
// neither blocks nor fails, and the real log is found (issue 14, 1–3).
func TestOpenDirSkipsIrregularFiles(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "app-20200101000000-0000")
	if err := os.WriteFile(log, []byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "app-fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "app-zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "app-loop"), filepath.Join(dir, "app-loop")); err != nil {
		t.Fatal(err)
	}
	skipped := map[string]error{}
	logs, err := Open(context.Background(), dir, OpenOptions{Skipped: func(p string, reason error) { skipped[filepath.Base(p)] = reason }})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 || logs[0].Path != log {
		t.Fatalf("got %d logs, want only %s", len(logs), log)
	}
	for _, name := range []string{"app-fifo", "app-zero", "app-loop"} {
		if skipped[name] == nil {
			t.Errorf("%s: not reported as skipped (skipped: %v)", name, skipped)
		}
	}
	if !errors.Is(skipped["app-fifo"], ErrIrregular) || !errors.Is(skipped["app-zero"], ErrIrregular) {
		t.Errorf("fifo and device: got %v, %v, want ErrIrregular", skipped["app-fifo"], skipped["app-zero"])
	}
	// Opened by name, they are refused at once instead of blocking or
	// reading forever.
	for _, name := range []string{"app-fifo", "app-zero"} {
		if _, err := (FileStore{}).Open(context.Background(), filepath.Join(dir, name)); !errors.Is(err, ErrIrregular) {
			t.Errorf("Open %s: got %v, want ErrIrregular", name, err)
		}
		if _, err := Open(context.Background(), filepath.Join(dir, name), OpenOptions{}); err == nil {
			t.Errorf("eventlog.Open %s: no error", name)
		}
	}
}
