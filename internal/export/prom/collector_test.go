package prom

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	spark "github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fakeSource is a fixed list of apps and a fixed health.
type fakeSource struct {
	apps   []App
	health Health
}

func (s *fakeSource) Apps() []App    { return s.apps }
func (s *fakeSource) Health() Health { return s.health }

// goldenLogs are real Spark logs: a local app, a YARN app with executor
// metrics, a YARN app with resource wait, skew and speculation findings,
// a standalone app with failing tasks, a Structured Streaming query (the
// streaming scenario on Spark 4.3), and an application still running (the
// incomplete-app scenario's driver, killed with a job and a stage under
// way, analysed two minutes after its last event).
var goldenLogs = []string{"local-1430917381534", "application_1553914137147_0018",
	"application_1628109047826_1317105", "app-20161115172038-0000", "scenario:streaming/spark-4.3.0",
	"running:scenario:incomplete-app/spark-3.5.9"}

// loadApps replays, analyzes and diagnoses shared Spark logs.
func loadApps(t testing.TB, names ...string) []App {
	t.Helper()
	var apps []App
	for _, n := range names {
		n, running := strings.CutPrefix(n, "running:")
		path := sparktest.Path(t, "spark-events", n)
		if strings.HasPrefix(n, "scenario:") { // a log of the repository's real-Spark scenarios
			path = filepath.Join("..", "..", "..", "testdata", "scenarios", strings.TrimPrefix(n, "scenario:"))
		}
		logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range logs {
			a, _, err := replay.Log(context.Background(), l, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := analyze.Analyze(a)
			if running {
				r = analyze.AnalyzeAt(a, analyze.LastEventTime(a)+120_000)
			}
			fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: r}, diagnose.All)
			apps = append(apps, NewApp(a, r, fs))
		}
	}
	return apps
}

// scrape serves the collector over HTTP as serve will and returns the body.
func scrape(t testing.TB, c prometheus.Collector) []byte {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: got status %d: %s", resp.StatusCode, buf.String())
	}
	return buf.Bytes()
}

func parse(t testing.TB, b []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// goldenConfig keeps every finished app of the logs inside a 100-year window.
func goldenConfig() Config {
	return Config{Window: 100 * 365 * 24 * time.Hour, Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }}
}

func TestGoldenMetrics(t *testing.T) {
	src := &fakeSource{apps: loadApps(t, goldenLogs...),
		health: Health{IngestLag: 1500 * time.Millisecond, QueueDepth: 2, ParseErrors: 3, Logs: 3}}
	c, err := NewCollector(src, goldenConfig())
	if err != nil {
		t.Fatal(err)
	}
	got := scrape(t, c)
	golden := filepath.Join("testdata", "golden.metrics")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("/metrics differs from %s (rerun with -update and read the diff)\ngot:\n%s", golden, got)
	}
}

// Every metric of the table appears in a scrape, with the type it
// declares, and the phase ratios of each app add up to 1.
func TestMetricTable(t *testing.T) {
	src := &fakeSource{apps: loadApps(t, goldenLogs...)}
	c, err := NewCollector(src, goldenConfig())
	if err != nil {
		t.Fatal(err)
	}
	fams := parse(t, scrape(t, c))
	for _, m := range table() {
		t.Run(m.name, func(t *testing.T) {
			f := fams[m.name]
			if f == nil {
				t.Fatalf("got no %s in the scrape", m.name)
			}
			if len(f.GetMetric()) == 0 {
				t.Errorf("got no series of %s", m.name)
			}
		})
	}
	sums := map[string]float64{}
	for _, s := range fams["spark_phase_breakdown_ratio"].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == "app_id" {
				sums[l.GetValue()] += s.GetGauge().GetValue()
			}
		}
	}
	for app, sum := range sums {
		if sum < 0.999 || sum > 1.001 {
			t.Errorf("%s: phase ratios sum to %v, want 1", app, sum)
		}
	}
	if len(sums) != len(goldenLogs) {
		t.Errorf("got phase ratios for %d apps, want %d", len(sums), len(goldenLogs))
	}
	// The histograms count every successful task attempt, which the
	// analyzer counted per stage.
	counts := map[string]uint64{}
	for _, s := range fams["spark_stage_task_duration_seconds"].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == "app_id" {
				counts[l.GetValue()] += s.GetHistogram().GetSampleCount()
			}
		}
	}
	for _, a := range src.apps {
		var want uint64
		for _, st := range a.Result.Stages {
			want += uint64(st.Succeeded)
		}
		// The running app was killed before any task finished.
		if got := counts[a.Result.AppID]; got != want || (want == 0 && !a.Result.Running) {
			t.Errorf("%s: histogram counts %d tasks, want %d (and more than 0)", a.Result.AppID, got, want)
		}
	}
}

// Finished apps leave /metrics once they ended more than Window ago;
// running apps stay whatever their age.
func TestWindow(t *testing.T) {
	apps := loadApps(t, "local-1430917381534", "application_1553914137147_0018")
	running := apps[1]
	res := *running.Result
	res.Completed = false
	running.Result = &res
	apps[1] = running
	end := apps[0].Result.EndTime
	for _, tc := range []struct {
		name     string
		now      time.Time
		wantApps []string
		dropped  float64
	}{
		{"just ended", time.UnixMilli(end + 1000), []string{apps[0].Result.AppID, res.AppID}, 0},
		{"window passed", time.UnixMilli(end).Add(2 * time.Hour), []string{res.AppID}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCollector(&fakeSource{apps: apps}, Config{Window: time.Hour, Now: func() time.Time { return tc.now }})
			if err != nil {
				t.Fatal(err)
			}
			fams := parse(t, scrape(t, c))
			got := appIDs(fams)
			slices.Sort(tc.wantApps)
			if strings.Join(got, ",") != strings.Join(tc.wantApps, ",") {
				t.Errorf("got apps %v, want %v", got, tc.wantApps)
			}
			if d := fams["sparkdx_serve_apps_dropped"].GetMetric()[0].GetGauge().GetValue(); d != tc.dropped {
				t.Errorf("got %v dropped, want %v", d, tc.dropped)
			}
		})
	}
}

// appIDs are the app_id labels of spark_app_info, sorted.
func appIDs(fams map[string]*dto.MetricFamily) []string {
	var out []string
	for _, s := range fams["spark_app_info"].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == "app_id" {
				out = append(out, l.GetValue())
			}
		}
	}
	slices.Sort(out)
	return out
}

// MaxFinishedApps bounds the finished applications: those that ended
// last are kept, every running one is, the rest are counted as dropped.
func TestFinishedAppsBound(t *testing.T) {
	apps := loadApps(t, "local-1430917381534", "application_1553914137147_0018", "local-1422981759269",
		"application_1578436911597_0052")
	res := *apps[3].Result
	res.Completed = false
	apps[3].Result = &res
	running := res.AppID
	// The finished ones from the one that ended last.
	fin := slices.Clone(apps[:3])
	slices.SortFunc(fin, func(a, b App) int { return int(b.Result.EndTime - a.Result.EndTime) })
	for _, tc := range []struct {
		max      int
		wantApps []string
	}{
		{1, []string{fin[0].Result.AppID, running}},
		{2, []string{fin[0].Result.AppID, fin[1].Result.AppID, running}},
		{3, []string{fin[0].Result.AppID, fin[1].Result.AppID, fin[2].Result.AppID, running}},
	} {
		c, err := NewCollector(&fakeSource{apps: slices.Clone(apps)}, Config{Window: 100 * 365 * 24 * time.Hour, MaxFinishedApps: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		fams := parse(t, scrape(t, c))
		got := appIDs(fams)
		slices.Sort(tc.wantApps)
		if strings.Join(got, ",") != strings.Join(tc.wantApps, ",") {
			t.Errorf("max %d: got apps %v, want %v", tc.max, got, tc.wantApps)
		}
		if d := fams["sparkdx_serve_apps_dropped"].GetMetric()[0].GetGauge().GetValue(); d != float64(3-tc.max) {
			t.Errorf("max %d: got %v dropped, want %d", tc.max, d, 3-tc.max)
		}
	}
}

// MaxExecutorsPerApp bounds executor series, keeping the driver and the
// largest heaps.
func TestExecutorBound(t *testing.T) {
	apps := loadApps(t, "application_1553914137147_0018")
	if n := len(apps[0].Result.Executors); n < 3 {
		t.Fatalf("fixture has %d executors, want at least 3", n)
	}
	c, err := NewCollector(&fakeSource{apps: apps}, Config{Window: 100 * 365 * 24 * time.Hour, MaxExecutorsPerApp: 2})
	if err != nil {
		t.Fatal(err)
	}
	fams := parse(t, scrape(t, c))
	series := fams["spark_executor_peak_jvm_heap_bytes"].GetMetric()
	if len(series) != 2 {
		t.Fatalf("got %d executor series, want 2", len(series))
	}
	var maxOther int64
	for _, e := range apps[0].Result.Executors {
		if e.ID != "driver" {
			maxOther = max(maxOther, e.PeakJVMHeapBytes)
		}
	}
	ids := map[string]float64{}
	for _, s := range series {
		for _, l := range s.GetLabel() {
			if l.GetName() == "executor_id" {
				ids[l.GetValue()] = s.GetGauge().GetValue()
			}
		}
	}
	if _, ok := ids["driver"]; !ok {
		t.Errorf("got executors %v, want the driver kept", ids)
	}
	for id, v := range ids {
		if id != "driver" && v != float64(maxOther) {
			t.Errorf("executor %s: got peak heap %v, want the largest, %d", id, v, maxOther)
		}
	}
}

// Bad input never fails the scrape: the same attempt twice keeps the one
// that ended later, and a name that is not UTF-8 is repaired.
func TestDuplicatesAndBadNames(t *testing.T) {
	apps := loadApps(t, "local-1430917381534", "local-1430917381534")
	later := *apps[1].Result
	later.EndTime += 1000
	later.DurationMs += 1000
	apps[1].Result = &later
	c, err := NewCollector(&fakeSource{apps: apps}, goldenConfig())
	if err != nil {
		t.Fatal(err)
	}
	fams := parse(t, scrape(t, c))
	if n := len(fams["spark_app_info"].GetMetric()); n != 1 {
		t.Fatalf("got %d spark_app_info series, want 1", n)
	}
	var end float64
	for _, s := range fams["spark_app_duration_seconds"].GetMetric() {
		end = s.GetGauge().GetValue()
	}
	if want := float64(later.DurationMs) / 1000; end != want {
		t.Errorf("got duration %v, want the later copy's %v", end, want)
	}
	if d := fams["sparkdx_serve_apps_dropped"].GetMetric()[0].GetGauge().GetValue(); d != 1 {
		t.Errorf("got %v dropped, want 1", d)
	}
	bad := loadApps(t, "local-1430917381534")
	bad[0].Name = "bad \xff name"
	c, err = NewCollector(&fakeSource{apps: bad}, goldenConfig())
	if err != nil {
		t.Fatal(err)
	}
	fams = parse(t, scrape(t, c))
	for _, l := range fams["spark_app_info"].GetMetric()[0].GetLabel() {
		if l.GetName() == "name" && l.GetValue() != "bad \uFFFD name" {
			t.Errorf("got name %q, want the invalid byte replaced", l.GetValue())
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"zero", Config{}, true},
		{"negative window", Config{Window: -time.Second}, false},
		{"negative executors", Config{MaxExecutorsPerApp: -1}, false},
		{"negative finished apps", Config{MaxFinishedApps: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCollector(&fakeSource{}, tc.cfg)
			if (err == nil) != tc.ok {
				t.Errorf("got error %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// promtool, Prometheus' own linter, accepts the exposition.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := sparktest.Program(t, "promtool")
	c, err := NewCollector(&fakeSource{apps: loadApps(t, goldenLogs...)}, goldenConfig())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(scrape(t, c))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func BenchmarkCollect(b *testing.B) {
	apps := loadApps(b, goldenLogs...)
	c, err := NewCollector(&fakeSource{apps: apps}, goldenConfig())
	if err != nil {
		b.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	b.SetBytes(int64(len(scrape(b, c)))) // bytes of exposition per scrape
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}

// Running jobs and stages are reported while the app runs, for as long as
// they have run, and not once the app has ended.
func TestRunningWork(t *testing.T) {
	app := func(running bool) App {
		r := &analyze.Result{AppID: "app-1", EndTime: 1_000_000, Running: running,
			Jobs: []analyze.Job{{ID: 3, Status: spark.JobRunning, SubmissionTime: 910_000}, {ID: 2, Status: spark.JobSucceeded, SubmissionTime: 500_000}},
			Stages: []analyze.Stage{{StageID: 7, AttemptID: 1, Status: spark.StageActive, SubmissionTime: 940_000},
				{StageID: 8, Status: spark.StagePending}, {StageID: 6, Status: spark.StageComplete, SubmissionTime: 900_000}}}
		return App{Result: r, TaskDurations: map[StageKind]*Histogram{}}
	}
	for _, running := range []bool{true, false} {
		c, err := NewCollector(&fakeSource{apps: []App{app(running)}}, goldenConfig())
		if err != nil {
			t.Fatal(err)
		}
		fams := parse(t, scrape(t, c))
		jobs, stages := fams["spark_job_running_seconds"].GetMetric(), fams["spark_stage_running_seconds"].GetMetric()
		if !running {
			if len(jobs)+len(stages) != 0 {
				t.Errorf("an ended app: got %d job and %d stage series, want none", len(jobs), len(stages))
			}
			continue
		}
		if len(jobs) != 1 || jobs[0].GetGauge().GetValue() != 90 || len(stages) != 1 || stages[0].GetGauge().GetValue() != 60 {
			t.Errorf("got jobs %v stages %v, want job 3 at 90 s and stage 7.1 at 60 s", jobs, stages)
		}
	}
}
