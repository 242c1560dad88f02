package server

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestIncompleteAppDurationIsToLastEvent: a log without its end event that
// is not .inprogress (its driver died) lasts until its last event in the
// fleet view, as `sparkdx analyze` says — not until the file's time or now.
func TestIncompleteAppDurationIsToLastEvent(t *testing.T) {
	src := sparktest.Path(t, "spark-events", "application_1516285256255_0012")
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var head strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for i := 0; i < 40 && sc.Scan(); i++ { // the first 40 events: no end
		head.WriteString(sc.Text() + "\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "application_1516285256255_0012"), []byte(head.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", dir)
	ts.waitIdle(t)
	var apps []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &apps)
	if len(apps) != 1 {
		t.Fatalf("got %d apps, want 1", len(apps))
	}
	// What `sparkdx analyze` says for the same events (2m40s).
	at, _, err := replay.Read(context.Background(), strings.NewReader(head.String()), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := analyze.Analyze(at).DurationMs
	if a := apps[0]; a.Status != "incomplete" || a.DurationMs != want || want < 60_000 || want > 600_000 {
		t.Errorf("got status %s, duration %d ms; want incomplete, %d ms (to the last event, as the CLI)", a.Status, a.DurationMs, want)
	}
}
