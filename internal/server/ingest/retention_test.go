package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestRetentionExpired(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	logs := []*eventlog.Log{
		{Path: "a", ModTime: now.Add(-1 * time.Hour)},
		{Path: "b", ModTime: now.Add(-50 * time.Hour)},
		{Path: "c.inprogress", ModTime: now.Add(-3 * time.Hour), InProgress: true},
		{Path: "d.inprogress", ModTime: now.Add(-80 * time.Hour), InProgress: true},
		{Path: "e", ModTime: now.Add(-2 * time.Hour)},
		{Path: "f", ModTime: now.Add(-2 * time.Hour)}, // as new as e: the path decides
	}
	for _, c := range []struct {
		name string
		r    Retention
		want []string
	}{
		{"no bound", Retention{}, nil},
		{"age", Retention{MaxAge: 48 * time.Hour}, []string{"b", "d.inprogress"}},
		{"finished count: running ones stay", Retention{MaxFinished: 2}, []string{"b", "f"}},
		{"count of what the age kept", Retention{MaxAge: 48 * time.Hour, MaxFinished: 1}, []string{"b", "d.inprogress", "e", "f"}},
		{"count above the logs", Retention{MaxFinished: 10}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for p := range c.r.expired(slices.Clone(logs), now) {
				got = append(got, p)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestRetentionStore: serve keeps the newest finished logs of the shared
// directory; a restart with a tighter bound drops the stored ones past it
// (store and fleet), a log past its age is never read, and none of the log
// files is touched.
func TestRetentionStore(t *testing.T) {
	dir := t.TempDir()
	names := []string{"local-1422981759269", "local-1425081759269", "local-1426533911241", "app-20161115172038-0000"}
	sparktest.CopyLogs(t, dir, names...)
	base := time.Now().Add(-time.Hour)
	for i, n := range names {
		p := filepath.Join(dir, n)
		// names[0] is the newest, names[3] ten days old.
		mod := base.Add(-time.Duration(i) * time.Minute)
		if i == 3 {
			mod = time.Now().Add(-240 * time.Hour)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored := func() []string {
		recs, err := st.Logs()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, filepath.Base(r.Path))
		}
		slices.Sort(out)
		return out
	}

	// First: a week's age. The ten-day-old log is never read.
	in, stop := run(t, Config{Roots: []string{dir}, Store: st, Apps: Retention{MaxAge: 7 * 24 * time.Hour}})
	s := waitDone(t, in, 3)
	stop()
	if want := []string{names[0], names[1], names[2]}; !slices.Equal(stored(), sortedCopy(want)) {
		t.Errorf("stored %v, want %v", stored(), sortedCopy(want))
	}
	if s.Expired != 1 {
		t.Errorf("expired: got %d, want 1 (the ten-day-old log)", s.Expired)
	}
	if s.Processed != 3 {
		t.Errorf("processed %d logs, want 3: a log past its age is not read", s.Processed)
	}

	// Then a restart keeping one finished app: the two older stored ones go.
	in, stop = run(t, Config{Roots: []string{dir}, Store: st, Apps: Retention{MaxAge: 7 * 24 * time.Hour, MaxFinished: 1}})
	deadline := time.Now().Add(30 * time.Second)
	for len(stored()) != 1 || in.Status().Logs != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("stored %v, index %+v; want %s alone", stored(), in.Status(), names[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := stored(); got[0] != names[0] {
		t.Errorf("kept %v, want the newest %s", got, names[0])
	}
	if recs := in.Records(); len(recs) != 1 || filepath.Base(recs[0].Path) != names[0] {
		t.Errorf("fleet: %v, want %s alone", recs, names[0])
	}
	if s := in.Status(); s.Expired != 3 {
		t.Errorf("expired: got %d, want 3", s.Expired)
	}
	stop()
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("the log %s is gone: %v", n, err)
		}
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
