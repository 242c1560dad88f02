package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestTailCompressed grows each codec's real log (as Spark's own codec
// libraries wrote it) into an .inprogress file at cut points that fall
// inside blocks and frames, then renames it: the app grows and ends with
// the result of an offline replay of the plain log.
func TestTailCompressed(t *testing.T) {
	plain := sparktest.Path(t, "spark-events", tailApp)
	offline := offlineViews(t, plain)
	for _, codec := range []string{"lz4", "zstd", "snappy", "lzf"} {
		t.Run(codec, func(t *testing.T) {
			data, err := os.ReadFile(sparktest.Path(t, "compressed", tailApp+"."+codec))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			ts := startServer(t, t.TempDir(), "", dir)
			inprog := filepath.Join(dir, tailApp+"."+codec+".inprogress")
			const steps = 5
			last := int64(-1)
			for i := 1; i <= steps; i++ {
				cut := len(data) * i / (steps + 1)
				if err := os.WriteFile(inprog, data[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
				ts.waitIdle(t)
				a, _ := appSummary(t, ts, tailApp)
				if a.Events < last {
					t.Errorf("cut %d/%d: events went from %d to %d", i, steps+1, last, a.Events)
				}
				last = a.Events
			}
			if last <= 0 {
				t.Errorf("no events while the %s log grew", codec)
			}
			if err := os.WriteFile(inprog, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(inprog, filepath.Join(dir, tailApp+"."+codec)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "completed", func() (bool, string) {
				a, _ := appSummary(t, ts, tailApp)
				return a.Status == "completed" && ts.in.Status().Done == 1, fmt.Sprintf("%+v", a)
			})
			checkLikeOffline(t, ts, offline)
		})
	}
}

// TestServeCompressedDir serves every codec and layout of the compressed
// test set: finished logs answer like the plain logs, unfinished ones
// (cut lines, cut blocks, cut frames) show as running apps.
func TestServeCompressedDir(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "compressed"),
		sparktest.Path(t, "compressed", "rolling-zstd"), sparktest.Path(t, "compressed", "rolling-lz4"))
	ts.waitIdle(t)
	st := ts.in.Status()
	if st.Errors != 0 {
		t.Errorf("got %d ingest errors, want 0: %+v", st.Errors, ts.in.Records())
	}
	// 4 apps x 4 codecs finished + 2 rolling; 4 unfinished copies of one
	// app. Copies of one application attempt are one application, the
	// others listed as duplicates (ingest/duplicates.go).
	byState := map[ingest.LogState]int{}
	for _, l := range ts.in.Logs().Logs {
		byState[l.State]++
	}
	ids := map[string]bool{}
	for _, a := range ts.srv.summaries() {
		ids[a.ID+"/"+a.AttemptID] = true
	}
	if shown := len(ts.srv.summaries()); shown != len(ids) || byState[ingest.StateDuplicate] != 22-shown {
		t.Errorf("%d applications shown (%d distinct), logs by state %v: want each attempt once, the other %d logs duplicates",
			shown, len(ids), byState, 22-shown)
	}
	plain, _, err := replay.Read(context.Background(), mustOpen(t, sparktest.Path(t, "spark-events", tailApp)), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := appViews(t, plain)
	for _, codec := range []string{"lz4", "zstd", "snappy", "lzf"} {
		key := filepath.Join(sparktest.Path(t, "compressed"), tailApp+"."+codec)
		a, release, err := ts.in.Attempt(context.Background(), key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		got := appViews(t, a)
		release()
		for v := range want {
			if got[v] != want[v] {
				t.Errorf("%s %s: differs from the plain log:\ngot  %.200s\nwant %.200s", codec, v, got[v], want[v])
			}
		}
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// appViews answers the History Server views of one attempt.
func appViews(t *testing.T, a *model.Attempt) map[string]string {
	t.Helper()
	api := historyapi.New(replay.GroupApps([]*model.Attempt{a}))
	out := map[string]string{}
	for _, v := range []string{"/jobs", "/stages", "/allexecutors", "/environment"} {
		x, err := api.Get("/api/v1/applications/" + a.AppID + v)
		if err != nil {
			t.Fatal(err)
		}
		out[v] = string(historyapi.Marshal(x))
	}
	return out
}
