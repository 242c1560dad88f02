package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
)

// TestReplacedListingOlderThanReads: a running log read past the size its
// listing gave (it grew after the scan, and a worker's next turn keeps the
// listing) is not taken for a cut log and read again from its start, as it
// was for every log growing by more than a turn's MaxBatch between scans;
// a log that is shorter now than what was read still is.
func TestReplacedListingOlderThanReads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app-1.inprogress")
	line := `{"Event":"SparkListenerLogStart","Spark Version":"3.5.9"}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	logs, err := eventlog.Open(ctx, dir, eventlog.OpenOptions{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("open: %v, %d logs", err, len(logs))
	}
	l := logs[0]
	listed := l.Parts[0].Size

	// The file grows by 50 lines; a turn reads 20 of them past the listing.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Repeat(line, 50))
	f.Close()
	e := &logEntry{}
	e.read.offset = listed + int64(20*len(line))
	if why := replaced(ctx, e, l); why != "" {
		t.Errorf("a log read past its listing's %d bytes, %d on disk: taken as replaced: %s", listed, listed+int64(50*len(line)), why)
	}

	// Cut to half of what was read: replaced, and the message says so.
	if err := os.Truncate(path, listed/2); err != nil {
		t.Fatal(err)
	}
	if why := replaced(ctx, e, l); !strings.Contains(why, "were read") {
		t.Errorf("a log cut below what was read: got %q, want it named", why)
	}
}
