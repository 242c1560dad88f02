package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// pushSamples posts n points of one metric for each of app's executors,
// as a sparkdx agent does.
func pushSamples(t *testing.T, url, app string, execs []string, t0 time.Time, n int) int {
	t.Helper()
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	var pts []*metricpb.NumberDataPoint
	for i := range n {
		for _, e := range execs {
			pts = append(pts, &metricpb.NumberDataPoint{TimeUnixNano: uint64(t0.Add(time.Duration(i) * 10 * time.Second).UnixNano()),
				Value:      &metricpb.NumberDataPoint_AsInt{AsInt: int64(100+i) << 20},
				Attributes: []*commonpb.KeyValue{str("spark.app.id", app), str("spark.executor.id", e), str("jvm.memory.type", "heap"), str("jvm.memory.pool.name", "old")}})
		}
	}
	req := &metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("host.name", "node-1"), str("service.name", "sparkdx-agent")}},
		ScopeMetrics: []*metricpb.ScopeMetrics{{Metrics: []*metricpb.Metric{{Name: "jvm.memory.used", Unit: "By",
			Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: pts}}}}}},
	}}}
	sparktest.PostOTLPMetrics(t, url, req)
	return len(pts)
}

// checkTable validates a table with deltacheck.
func checkTable(t *testing.T, dir, name string) *deltacheck.Table {
	t.Helper()
	tb, err := deltacheck.Check(os.DirFS(filepath.Join(dir, name)))
	if err != nil {
		t.Fatalf("table %s: %v", name, err)
	}
	return tb
}

// readRows reads every live row of a table.
func readRows[T any](t *testing.T, dir, name string) []T {
	t.Helper()
	var out []T
	for _, f := range checkTable(t, dir, name).Files {
		rows, err := parquet.ReadFile[T](filepath.Join(dir, name, f.Path))
		if err != nil {
			t.Fatalf("table %s: %s: %v", name, f.Path, err)
		}
		out = append(out, rows...)
	}
	return out
}

// serve --delta appends each finished application once, a running one's
// ended jobs and stages as they end (not its apps or findings rows), and
// agent samples as they arrive; a restart adds nothing twice.
func TestServeDelta(t *testing.T) {
	logs, lake, data := t.TempDir(), t.TempDir(), t.TempDir()
	finished := []string{"local-1422981759269", "local-1430917381534", "app-20161116163331-0000"}
	sparktest.CopyLogs(t, logs, finished...)
	b, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1425081759269"))
	if err != nil {
		t.Fatal(err)
	}
	half := bytes.SplitAfter(b, []byte("\n"))
	const running = "local-1425081759269"
	if err := os.WriteFile(filepath.Join(logs, running+".inprogress"), bytes.Join(half[:len(half)/2], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--event-logs", logs, "--data", data, "--delta", lake, "--delta-flush-interval", "100ms"}

	s := runServeInProcess(t, args...)
	s.waitIdle(t)
	want := map[string]int{} // findings per finished app, as serve reports them
	for _, app := range finished {
		var rep struct {
			Findings []json.RawMessage `json:"findings"`
		}
		if err := json.Unmarshal(s.get(t, "/api/sparkdx/v1/apps/"+app+"/report"), &rep); err != nil {
			t.Fatal(err)
		}
		want[app] = len(rep.Findings)
	}
	t0 := time.Now().Add(-time.Minute).Truncate(time.Second)
	pushed := pushSamples(t, s.url, finished[0], []string{"driver", "1", "2"}, t0, 4)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(lake, delta.TableSamples)); err == nil && checkTable(t, lake, delta.TableSamples).Rows == int64(pushed) {
			break // committed while serve runs, not only at its exit
		}
		if time.Now().After(deadline) {
			t.Fatalf("samples table did not get %d rows in 20s:\n%s", pushed, s.logs)
		}
	}
	// The running app's jobs and stage attempts that have ended reach the
	// jobs and stages tables while it runs (a long-running driver's), at
	// most those, under a transaction id of their own.
	endedJobs, endedStages := ended(t, s, running)
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, s.logs)
	}
	rowsOf := func(app string) (jobs, stages int) {
		for _, r := range readRows[delta.JobRow](t, lake, delta.TableJobs) {
			if r.AppID == app {
				jobs++
			}
		}
		for _, r := range readRows[delta.StageRow](t, lake, delta.TableStages) {
			if r.AppID == app {
				stages++
			}
		}
		return jobs, stages
	}
	liveJobs, liveStages := rowsOf(running)
	liveTxns := map[string]int{delta.TableJobs: min(liveJobs, 1), delta.TableStages: min(liveStages, 1)}
	check := func(t *testing.T) {
		apps := readRows[delta.AppRow](t, lake, delta.TableApps)
		var ids []string
		for _, a := range apps {
			ids = append(ids, a.AppID)
		}
		sort.Strings(ids)
		wantIDs := append([]string{}, finished...)
		sort.Strings(wantIDs)
		if len(ids) != len(wantIDs) || ids[0] != wantIDs[0] || ids[1] != wantIDs[1] || ids[2] != wantIDs[2] {
			t.Errorf("apps: got %v, want each finished app once (not the running %s): %v", ids, running, wantIDs)
		}
		for _, name := range []string{delta.TableJobs, delta.TableStages, delta.TableExecutors, delta.TableFindings} {
			if got := len(checkTable(t, lake, name).Txns); got != len(finished)+liveTxns[name] {
				t.Errorf("table %s: got %d app transactions, want %d", name, got, len(finished)+liveTxns[name])
			}
		}
		got := map[string]int{}
		for _, f := range readRows[delta.FindingRow](t, lake, delta.TableFindings) {
			got[f.AppID]++
		}
		for _, app := range finished {
			if got[app] != want[app] {
				t.Errorf("findings of %s: got %d rows, want %d (its report's)", app, got[app], want[app])
			}
		}
		if j, st := rowsOf(finished[0]); j == 0 || st == 0 {
			t.Errorf("%s: got %d job and %d stage rows, want its jobs and stages", finished[0], j, st)
		}
		if liveStages == 0 || liveStages > endedStages || liveJobs > endedJobs {
			t.Errorf("running %s: got %d job and %d stage rows, want at most its %d ended jobs and, of its %d ended stage attempts, some",
				running, liveJobs, liveStages, endedJobs, endedStages)
		}
		samples := readRows[delta.SampleRow](t, lake, delta.TableSamples)
		if len(samples) != pushed {
			t.Fatalf("samples: got %d rows, want %d", len(samples), pushed)
		}
		for _, r := range samples {
			if r.AppID != finished[0] || r.Host != "node-1" || r.Metric != "jvm.memory.used" || r.Attributes["jvm.memory.pool.name"] != "old" ||
				r.Time.Before(t0) || r.Date != delta.SampleDate(r.Time) {
				t.Errorf("sample row %+v: want %s's jvm.memory.used from node-1 after %s", r, finished[0], t0)
				break
			}
		}
	}
	t.Run("first run", check)

	// Restart with a new store over the same tables: every log is read and
	// written again, and nothing lands twice; the app that was running
	// has ended meanwhile and is appended once.
	if err := os.WriteFile(filepath.Join(logs, running), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(logs, running+".inprogress")); err != nil {
		t.Fatal(err)
	}
	args[3] = t.TempDir() // --data
	// This time with maintenance every 200 ms: the apps table's one file per
	// application is compacted while serve runs.
	s = runServeInProcess(t, append(args, "--delta-maintain-every", "200ms")...)
	s.waitIdle(t)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tb := checkTable(t, lake, delta.TableApps)
		if len(tb.Files) == 1 && tb.Rows == int64(len(finished)+1) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("apps table not compacted by serve in 20 s: %d rows in %d files:\n%s", tb.Rows, len(tb.Files), s.logs)
		}
	}
	var rep struct {
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal(s.get(t, "/api/sparkdx/v1/apps/"+running+"/report"), &rep); err != nil {
		t.Fatal(err)
	}
	allJobs, allStages := ended(t, s, running)
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, s.logs)
	}
	finished, want[running] = append(finished, running), len(rep.Findings)
	t.Run("after restart", func(t *testing.T) {
		apps := readRows[delta.AppRow](t, lake, delta.TableApps)
		if len(apps) != len(finished) {
			t.Errorf("apps: got %d rows, want %d", len(apps), len(finished))
		}
		for _, name := range []string{delta.TableJobs, delta.TableStages, delta.TableExecutors, delta.TableFindings} {
			if got := len(checkTable(t, lake, name).Txns); got != len(finished)+liveTxns[name] {
				t.Errorf("table %s: got %d app transactions, want %d", name, got, len(finished)+liveTxns[name])
			}
		}
		// What was written while it ran is not written again at its end.
		if j, st := rowsOf(running); j != allJobs || st != allStages {
			var rows []string
			for _, r := range readRows[delta.StageRow](t, lake, delta.TableStages) {
				if r.AppID == running {
					rows = append(rows, fmt.Sprintf("%d.%d %s", r.StageID, r.StageAttemptID, r.Status))
				}
			}
			t.Errorf("%s after its end: got %d job and %d stage rows (%v), want each of its %d jobs and %d stage attempts once",
				running, j, st, rows, allJobs, allStages)
		}
		got := map[string]int{}
		for _, f := range readRows[delta.FindingRow](t, lake, delta.TableFindings) {
			got[f.AppID]++
		}
		for _, app := range finished {
			if got[app] != want[app] {
				t.Errorf("findings of %s: got %d rows, want %d", app, got[app], want[app])
			}
		}
		if n := checkTable(t, lake, delta.TableSamples).Rows; n != int64(pushed) {
			t.Errorf("samples: got %d rows, want %d", n, pushed)
		}
	})
	t.Run("read by delta-rs and Spark", func(t *testing.T) {
		readByOthers(t, lake, deltaread.DeltaRS(t, nil), deltaread.Spark(t, nil))
	})
}

// ended counts the jobs and stage attempts of app that serve's History
// Server API shows ended: succeeded or failed jobs; complete, failed or
// skipped (its job ended without running it) stage attempts.
func ended(t *testing.T, s *inServe, app string) (jobs, stages int) {
	t.Helper()
	var js []struct{ Status string }
	if err := json.Unmarshal(s.get(t, "/api/v1/applications/"+app+"/jobs"), &js); err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if j.Status == "SUCCEEDED" || j.Status == "FAILED" {
			jobs++
		}
	}
	var ss []struct{ Status string }
	if err := json.Unmarshal(s.get(t, "/api/v1/applications/"+app+"/stages"), &ss); err != nil {
		t.Fatal(err)
	}
	for _, st := range ss {
		if st.Status == "COMPLETE" || st.Status == "FAILED" || st.Status == "SKIPPED" {
			stages++
		}
	}
	return jobs, stages
}

// readByOthers has other engines read every table under lake: each sees
// the version, rows, files and app ids sparkdx reads.
func readByOthers(t *testing.T, lake string, readers ...deltaread.Reader) {
	t.Helper()
	names := []string{delta.TableApps, delta.TableJobs, delta.TableStages, delta.TableExecutors, delta.TableFindings}
	if _, err := os.Stat(filepath.Join(lake, delta.TableSamples)); err == nil {
		names = append(names, delta.TableSamples)
	}
	for _, read := range readers {
		views := read.Read(lake, names, -1)
		for _, name := range names {
			own, v := checkTable(t, lake, name), views[name]
			if v.Version != own.Version || v.Rows != own.Rows || v.Files != len(own.Files) {
				t.Errorf("%s: %s reads version %d, %d rows in %d files; sparkdx reads version %d, %d rows in %d files",
					name, read.Name, v.Version, v.Rows, v.Files, own.Version, own.Rows, len(own.Files))
			}
		}
		apps := readRows[delta.AppRow](t, lake, delta.TableApps)
		var ids []string
		for _, a := range apps {
			ids = append(ids, a.AppID)
		}
		slices.Sort(ids)
		if got := views[delta.TableApps].Apps; !slices.Equal(got, ids) {
			t.Errorf("apps: %s reads app ids %v, sparkdx %v", read.Name, got, ids)
		}
	}
}

// Applications analysed before --delta was given are written when it is:
// serve does not read their logs again, it replays them for the tables.
func TestServeDeltaBackfill(t *testing.T) {
	logs, lake, data := t.TempDir(), t.TempDir(), t.TempDir()
	apps := []string{"local-1422981759269", "app-20161116163331-0000"}
	sparktest.CopyLogs(t, logs, apps...)
	s := runServeInProcess(t, "--event-logs", logs, "--data", data)
	s.waitIdle(t)
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, s.logs)
	}
	s = runServeInProcess(t, "--event-logs", logs, "--data", data, "--delta", lake)
	st := s.waitIdle(t)
	if got := st["bytesRead"].(float64); got != 0 {
		t.Errorf("second run read %v bytes of logs, want 0 (stored analyses)", got)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(lake, delta.TableApps)); err == nil && checkTable(t, lake, delta.TableApps).Rows == int64(len(apps)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("apps table did not get %d rows in 20s:\n%s", len(apps), s.logs)
		}
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, s.logs)
	}
	for _, name := range []string{delta.TableJobs, delta.TableStages, delta.TableExecutors, delta.TableFindings} {
		if got := len(checkTable(t, lake, name).Txns); got != len(apps) {
			t.Errorf("table %s: got %d app transactions, want %d", name, got, len(apps))
		}
	}
}
