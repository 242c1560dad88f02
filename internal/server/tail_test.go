package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const tailApp = "local-1430917381534"

// waitFor polls until cond holds or fails after 20s.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		ok, s := cond()
		if ok {
			return
		}
		last = s
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; last: %s", what, last)
}

func appSummary(t *testing.T, ts *testServer, id string) (fleet.AppSummary, bool) {
	var apps []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &apps)
	for _, a := range apps {
		if a.ID == id {
			return a, true
		}
	}
	return fleet.AppSummary{}, false
}

// offlineViews is what a whole offline replay answers for the app.
func offlineViews(t *testing.T, path string) map[string]string {
	apps, err := replay.LoadApps(context.Background(), path, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api := historyapi.New(apps)
	out := map[string]string{}
	for _, v := range []string{"/jobs", "/stages", "/allexecutors", "/environment", "/stages/0/0/taskList?length=200"} {
		x, err := api.Get("/api/v1/applications/" + tailApp + v)
		if err != nil {
			t.Fatal(err)
		}
		out[v] = string(historyapi.Marshal(x))
	}
	return out
}

func checkLikeOffline(t *testing.T, ts *testServer, offline map[string]string) {
	t.Helper()
	for v, want := range offline {
		code, got := ts.get(t, "/api/v1/applications/"+tailApp+v)
		if code != 200 || string(got) != want {
			t.Errorf("GET %s: status %d, differs from offline replay:\ngot  %.200s\nwant %.200s", v, code, got, want)
		}
	}
}

// reportOf is the default analysis of an offline replay.
func reportOf(a *model.Attempt, modTime time.Time) ([]byte, error) {
	return ingest.ReportJSON(ingest.Input{Attempt: a, Log: reportv1.Log{}, ModTime: modTime, Now: time.Now()})
}

// ended says whether the lines include the application's end.
func ended(lines [][]byte) bool {
	for _, ln := range lines {
		if bytes.Contains(ln, []byte(`"SparkListenerApplicationEnd"`)) {
			return true
		}
	}
	return false
}

// TestTailInProgressFile appends a real log line by line (in steps) to an
// .inprogress file: the app shows as running with growing task counts,
// then, once Spark's rename happens, completed with the offline result.
func TestTailInProgressFile(t *testing.T) {
	src := sparktest.Path(t, "spark-events", tailApp)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	dir := t.TempDir()
	ts := startServer(t, t.TempDir(), "", dir)
	inprog := filepath.Join(dir, tailApp+".inprogress")
	f, err := os.Create(inprog)
	if err != nil {
		t.Fatal(err)
	}
	lastTasks, grew := -1, 0
	const steps = 8
	for i := 0; i < steps; i++ {
		lo, hi := i*len(lines)/steps, (i+1)*len(lines)/steps
		for _, ln := range lines[lo:hi] {
			if _, err := f.Write(ln); err != nil { // one write per line, as Spark flushes
				t.Fatal(err)
			}
		}
		wantEvents := int64(0)
		for _, ln := range lines[:hi] {
			if len(bytes.TrimSpace(ln)) > 0 {
				wantEvents++
			}
		}
		var a fleet.AppSummary
		waitFor(t, fmt.Sprintf("step %d: %d events", i, wantEvents), func() (bool, string) {
			var ok bool
			a, ok = appSummary(t, ts, tailApp)
			return ok && a.Events == wantEvents, fmt.Sprintf("%+v", a)
		})
		if wantStatus := map[bool]string{false: "running", true: "completed"}[ended(lines[:hi])]; a.Status != wantStatus {
			t.Errorf("step %d: got status %q, want %s", i, a.Status, wantStatus)
		}
		if a.Tasks < lastTasks {
			t.Errorf("step %d: tasks went from %d to %d", i, lastTasks, a.Tasks)
		}
		if a.Tasks > lastTasks && lastTasks >= 0 {
			grew++
		}
		lastTasks = a.Tasks
		// The History Server API sees the running app too.
		var info struct {
			Attempts []struct{ Completed bool } `json:"attempts"`
		}
		ts.getJSON(t, "/api/v1/applications/"+tailApp, &info)
		if len(info.Attempts) != 1 || info.Attempts[0].Completed != ended(lines[:hi]) {
			t.Errorf("step %d: /api/v1 app: got %+v, want one running attempt", i, info)
		}
		// The (cached) list and fleet page follow the index.
		var running []struct{ ID string }
		ts.getJSON(t, "/api/v1/applications?status=running", &running)
		if isRunning := len(running) == 1 && running[0].ID == tailApp; isRunning == ended(lines[:hi]) {
			t.Errorf("step %d: /api/v1/applications?status=running: got %+v", i, running)
		}
		if _, page := ts.get(t, "/"); !bytes.Contains(page, []byte(fmt.Sprintf(`<td class="num tasks">%d</td>`, a.Tasks))) {
			t.Errorf("step %d: fleet page does not show %d tasks", i, a.Tasks)
		}
	}
	if grew < 2 {
		t.Errorf("task count grew in %d steps, want at least 2", grew)
	}
	f.Close()
	final := filepath.Join(dir, tailApp)
	if err := os.Rename(inprog, final); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "completed", func() (bool, string) {
		a, _ := appSummary(t, ts, tailApp)
		return a.Status == "completed", a.Status
	})
	checkLikeOffline(t, ts, offlineViews(t, src))
	// The stored report equals an offline analysis of the same log.
	var got, want map[string]json.RawMessage
	ts.getJSON(t, "/api/sparkdx/v1/apps/"+tailApp+"/report", &got)
	a, _, err := replay.Read(context.Background(), bytes.NewReader(data), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(final)
	if err != nil {
		t.Fatal(err)
	}
	b, err := reportOf(a, fi.ModTime())
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &want)
	for _, k := range []string{"app", "stages", "executors", "phases", "findings"} {
		if string(got[k]) != string(want[k]) {
			t.Errorf("report %s: got %.200s, want %.200s", k, got[k], want[k])
		}
	}
	if apps := ts.in.Records(); len(apps) != 1 {
		t.Errorf("got %d index records after the rename, want 1", len(apps))
	}
}

// TestTailRollingDir writes a rolling log part by part.
func TestTailRollingDir(t *testing.T) {
	src := sparktest.Path(t, "spark-events", tailApp)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	root := t.TempDir()
	dir := filepath.Join(root, "eventlog_v2_"+tailApp)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	status := filepath.Join(dir, "appstatus_"+tailApp+".inprogress")
	if err := os.WriteFile(status, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", root)
	const parts = 3
	lastTasks := -1
	for i := 0; i < parts; i++ {
		lo, hi := i*len(lines)/parts, (i+1)*len(lines)/parts
		part := filepath.Join(dir, fmt.Sprintf("events_%d_%s", i+1, tailApp))
		if err := os.WriteFile(part, bytes.Join(lines[lo:hi], nil), 0o644); err != nil {
			t.Fatal(err)
		}
		var want int64
		for _, ln := range lines[:hi] {
			if len(bytes.TrimSpace(ln)) > 0 {
				want++
			}
		}
		waitFor(t, fmt.Sprintf("part %d", i+1), func() (bool, string) {
			a, _ := appSummary(t, ts, tailApp)
			return a.Events == want, fmt.Sprintf("%+v", a)
		})
		a, _ := appSummary(t, ts, tailApp)
		if a.Status != map[bool]string{false: "running", true: "completed"}[ended(lines[:hi])] || a.Tasks <= lastTasks {
			t.Errorf("part %d: got status %s tasks %d (before %d), want running and growing", i+1, a.Status, a.Tasks, lastTasks)
		}
		lastTasks = a.Tasks
	}
	if err := os.Rename(status, filepath.Join(dir, "appstatus_"+tailApp)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "completed", func() (bool, string) {
		a, _ := appSummary(t, ts, tailApp)
		return a.Status == "completed", a.Status
	})
	checkLikeOffline(t, ts, offlineViews(t, src))
}

// TestTailRollingCompaction: Spark's compaction replaces finished parts by
// an events_<N>_<app>.compact file while the app runs. Tailing continues
// from the part it was reading when that part survives, and starts over
// when it was compacted away; either way the app ends like offline.
func TestTailRollingCompaction(t *testing.T) {
	src := sparktest.Path(t, "spark-events", tailApp)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	part := func(i, n int) []byte { return bytes.Join(lines[i*len(lines)/n:(i+1)*len(lines)/n], nil) }
	for _, c := range []struct {
		name      string
		compactTo int // parts 1..compactTo become events_<compactTo>.compact
	}{{"reading part survives", 2}, {"reading part compacted", 3}} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "eventlog_v2_"+tailApp)
			os.Mkdir(dir, 0o755)
			status := filepath.Join(dir, "appstatus_"+tailApp+".inprogress")
			os.WriteFile(status, nil, 0o644)
			name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("events_%d_%s", i, tailApp)) }
			const n = 4
			for i := 0; i < 3; i++ {
				os.WriteFile(name(i+1), part(i, n), 0o644)
			}
			ts := startServer(t, t.TempDir(), "", root)
			var want int64
			for _, ln := range lines[:3*len(lines)/n] {
				if len(bytes.TrimSpace(ln)) > 0 {
					want++
				}
			}
			waitFor(t, "three parts", func() (bool, string) {
				a, _ := appSummary(t, ts, tailApp)
				return a.Events == want, fmt.Sprint(a.Events)
			})
			// Compact: the first parts become one .compact file holding
			// their lines (Spark would also drop events no UI needs).
			var compact []byte
			for i := 0; i < c.compactTo; i++ {
				compact = append(compact, part(i, n)...)
			}
			os.WriteFile(name(c.compactTo)+".compact", compact, 0o644)
			for i := 1; i <= c.compactTo; i++ {
				os.Remove(name(i))
			}
			os.WriteFile(name(4), part(3, n), 0o644)
			os.Rename(status, filepath.Join(dir, "appstatus_"+tailApp))
			waitFor(t, "completed", func() (bool, string) {
				a, _ := appSummary(t, ts, tailApp)
				return a.Status == "completed" && ts.in.Status().Done == 1, fmt.Sprintf("%+v", a)
			})
			checkLikeOffline(t, ts, offlineViews(t, src))
		})
	}
}
