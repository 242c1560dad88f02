package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// The runs of runLogs: two applications of one Airflow DAG run (the
// properties Airflow's OpenLineage provider injects, one task each), one
// application with a hostile spark.sparkdx.run, one in no run.
const (
	dagRun     = "01931885-2800-799d-8041-88a263ffa0d8"
	dagRunName = "default/etl_daily"
	xssRun     = `<script>alert('run')</script>/nightly`
	runAppA    = "local-1422981759269"
	runAppB    = "app-20200706201101-0003"
	runAppXSS  = "local-1426533911241"
	runAppNone = "local-1425081759269"
)

// runLogs writes the shared logs of the run tests, edited to carry run
// properties, into a new directory.
func runLogs(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	withProps := func(app string, props map[string]string) {
		var add strings.Builder
		for k, v := range props {
			add.WriteString(strings.TrimSuffix(strings.TrimPrefix(jsonString(t, map[string]string{k: v}), "{"), "}") + ",")
		}
		done := false
		log := sparktest.EditedLog(t, func(line string) (string, bool) {
			if !done && strings.Contains(line, `"Spark Properties":{`) {
				done = true
				return strings.Replace(line, `"Spark Properties":{`, `"Spark Properties":{`+add.String(), 1), true
			}
			return line, true
		}, "spark-events", app)
		if len(props) > 0 && !done {
			t.Fatalf("%s: no Spark Properties to edit", app)
		}
		if err := os.WriteFile(filepath.Join(dir, app), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ol := func(task string) map[string]string {
		return map[string]string{"spark.openlineage.parentJobNamespace": "default",
			"spark.openlineage.parentJobName": "etl_daily." + task, "spark.openlineage.parentRunId": "task-run-" + task,
			"spark.openlineage.rootParentJobNamespace": "default", "spark.openlineage.rootParentJobName": "etl_daily",
			"spark.openlineage.rootParentRunId": dagRun}
	}
	withProps(runAppA, ol("load_orders"))
	withProps(runAppB, ol("report"))
	withProps(runAppXSS, map[string]string{"spark.sparkdx.run": xssRun})
	withProps(runAppNone, nil)
	return dir
}

func jsonString(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// proc is one process's series as the agent reports it: RSS and CPU
// seconds (user, system) at each sample.
type proc struct {
	app, exec string
	kind      string // "" (the JVM), "python" (its Python workers) or "launcher"
	rss       func(i int) int64
	user, sys func(i int) float64
}

// pushProcesses posts what a sparkdx agent sends for procs (the metric
// names and attributes of internal/agent/otlp.go), every 10 s from t0 for
// n samples.
func pushProcesses(t testing.TB, url string, t0 time.Time, n int, procs ...proc) {
	t.Helper()
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	pts := map[string][]*metricpb.NumberDataPoint{}
	for i := range n {
		ts := uint64(t0.Add(time.Duration(i) * 10 * time.Second).UnixNano())
		for _, p := range procs {
			role := "executor"
			if p.exec == "driver" {
				role = "driver"
			}
			base := []*commonpb.KeyValue{str("spark.app.id", p.app), str("spark.executor.id", p.exec), str("spark.role", role)}
			with := func(kv ...*commonpb.KeyValue) []*commonpb.KeyValue {
				return append(append([]*commonpb.KeyValue{}, base...), kv...)
			}
			mem, cpu := "process.memory.usage", "process.cpu.time"
			var kind []*commonpb.KeyValue
			switch p.kind {
			case "python":
				mem, cpu = "sparkdx.process.tree.memory.usage", "sparkdx.process.tree.cpu.time"
				kind = []*commonpb.KeyValue{str("sparkdx.process.kind", "python")}
			case "launcher":
				mem, cpu = "sparkdx.process.launcher.memory.usage", "sparkdx.process.launcher.cpu.time"
			}
			pts[mem] = append(pts[mem], &metricpb.NumberDataPoint{TimeUnixNano: ts,
				Value: &metricpb.NumberDataPoint_AsInt{AsInt: p.rss(i)}, Attributes: with(kind...)})
			for mode, f := range map[string]func(int) float64{"user": p.user, "system": p.sys} {
				pts[cpu] = append(pts[cpu], &metricpb.NumberDataPoint{TimeUnixNano: ts,
					Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: f(i)}, Attributes: with(append(kind, str("cpu.mode", mode))...)})
			}
		}
	}
	var ms []*metricpb.Metric
	for name, p := range pts {
		ms = append(ms, &metricpb.Metric{Name: name, Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: p}}})
	}
	sparktest.PostOTLPMetrics(t, url, &metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource:     &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("host.name", "node-1")}},
		ScopeMetrics: []*metricpb.ScopeMetrics{{Metrics: ms}},
	}}})
}

const mib = 1 << 20

// runSamples pushes agent samples for the DAG run's two applications:
// app A's driver (0.4 cores, up to 610 MiB) and its Python launcher (0.05
// cores, 80 MiB); app B's driver (0.2 cores, 700 MiB), executor 0 (0.8
// cores) whose Python workers use 0.9 cores and up to 420 MiB (one worker
// exits at the 9th sample), executor 1 (1.5 cores, 3.5 for one interval
// ending at t0+60s; up to 1135 MiB).
func runSamples(t testing.TB, url string, t0 time.Time) {
	zero := func(int) float64 { return 0 }
	pushProcesses(t, url, t0, 12,
		proc{app: runAppA, exec: "driver", rss: func(i int) int64 { return (500 + 10*int64(i)) * mib },
			user: func(i int) float64 { return 3 * float64(i) }, sys: func(i int) float64 { return float64(i) }},
		proc{app: runAppA, exec: "driver", kind: "launcher", rss: func(int) int64 { return 80 * mib },
			user: func(i int) float64 { return 0.5 * float64(i) }, sys: zero},
		proc{app: runAppB, exec: "driver", rss: func(int) int64 { return 700 * mib },
			user: func(i int) float64 { return 2 * float64(i) }, sys: zero},
		proc{app: runAppB, exec: "0", rss: func(i int) int64 { return (1024 + int64(i)) * mib },
			user: func(i int) float64 { return 8 * float64(i) }, sys: zero},
		proc{app: runAppB, exec: "0", kind: "python", rss: func(i int) int64 { return (200 + 20*int64(i)) * mib },
			user: func(i int) float64 {
				if i >= 8 {
					return 9 * float64(i-8)
				}
				return 9 * float64(i)
			}, sys: zero},
		proc{app: runAppB, exec: "1", rss: func(i int) int64 { return (1124 + int64(i)) * mib },
			user: func(i int) float64 {
				if i >= 6 {
					return 15*float64(i) + 20
				}
				return 15 * float64(i)
			}, sys: zero},
	)
}

// TestRunsAPI: applications whose Spark properties name one Airflow DAG
// run are one run in the API, with the per-process-type peaks of their
// agent samples; paging, sorting and errors as documented.
func TestRunsAPI(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", runLogs(t))
	ts.waitIdle(t)
	t0 := time.UnixMilli(1594091461000)
	runSamples(t, ts.url, t0)

	var rs []fleet.RunSummary
	ts.getJSON(t, "/api/sparkdx/v1/runs", &rs)
	if len(rs) != 2 {
		t.Fatalf("got %d runs, want 2: %+v", len(rs), rs)
	}
	byID := map[string]fleet.RunSummary{}
	for _, r := range rs {
		byID[r.ID] = r
	}
	dag, ok := byID[dagRun]
	if !ok || dag.Name != dagRunName || dag.Source != "openlineage-root" || dag.Apps != 2 || dag.Status != "completed" {
		t.Errorf("DAG run: got %+v, want %s named %s from openlineage-root, 2 completed apps", dag, dagRun, dagRunName)
	}
	if dag.StartTime <= 0 || dag.EndTime <= dag.StartTime || dag.DurationMs != dag.EndTime-dag.StartTime {
		t.Errorf("DAG run times: start %d end %d duration %d", dag.StartTime, dag.EndTime, dag.DurationMs)
	}
	if x := byID[xssRun]; x.Name != xssRun || x.Source != "sparkdx" || x.Apps != 1 {
		t.Errorf("sparkdx run: got %+v", x)
	}

	// Sorting and paging.
	ts.getJSON(t, "/api/sparkdx/v1/runs?sort=name", &rs)
	if len(rs) != 2 || rs[0].ID != xssRun || rs[1].ID != dagRun {
		t.Errorf("sort=name: got %v, want the <script> run first", ids(rs))
	}
	ts.getJSON(t, "/api/sparkdx/v1/runs?sort=-apps&length=1", &rs)
	if len(rs) != 1 || rs[0].ID != dagRun {
		t.Errorf("sort=-apps&length=1: got %v, want the DAG run only", ids(rs))
	}
	ts.getJSON(t, "/api/sparkdx/v1/runs?sort=-apps&offset=1&length=1", &rs)
	if len(rs) != 1 || rs[0].ID != xssRun {
		t.Errorf("offset=1&length=1: got %v, want the second run", ids(rs))
	}
	resp, err := http.Get(ts.url + "/api/sparkdx/v1/runs?length=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Total-Count"); got != "2" {
		t.Errorf("X-Total-Count: got %q, want 2", got)
	}
	ts.getJSON(t, "/api/sparkdx/v1/runs?q=ETL_DAILY", &rs)
	if len(rs) != 1 || rs[0].ID != dagRun {
		t.Errorf("q=ETL_DAILY: got %v", ids(rs))
	}
	for _, q := range []string{"sort=size", "offset=-1", "length=x", "status=done"} {
		if code, body := ts.get(t, "/api/sparkdx/v1/runs?"+q); code != http.StatusBadRequest || !bytes.Contains(body, []byte(`"error"`)) {
			t.Errorf("?%s: got %d %s, want 400 with a JSON error", q, code, body)
		}
	}

	// One run: its applications (each with its task) and the peaks.
	var d fleet.RunDetail
	ts.getJSON(t, "/api/sparkdx/v1/runs/"+url.PathEscape(dagRun), &d)
	tasks := map[string]string{}
	for _, a := range d.AppList {
		tasks[a.ID] = a.Run.Task
	}
	if len(d.AppList) != 2 || tasks[runAppA] != "etl_daily.load_orders" || tasks[runAppB] != "etl_daily.report" {
		t.Errorf("DAG run applications: got %v, want %s and %s with their tasks", tasks, runAppA, runAppB)
	}
	ms := t0.UnixMilli()
	pk := func(v float64, at int64, app, exec string) fleet.Peak {
		return fleet.Peak{Value: v, Time: at, AppID: app, ExecutorID: exec}
	}
	want := []struct {
		typ       string
		processes int
		cpu       fleet.Peak
		rss       fleet.Peak
	}{
		{"driver", 2, pk(0.4, ms+10000, runAppA, "driver"), pk(700*mib, ms, runAppB, "driver")},
		{"executor", 2, pk(3.5, ms+60000, runAppB, "1"), pk(1135*mib, ms+110000, runAppB, "1")},
		{"python", 1, pk(0.9, ms+10000, runAppB, "0"), pk(420*mib, ms+110000, runAppB, "0")},
		{"launcher", 1, pk(0.05, ms+10000, runAppA, "driver"), pk(80*mib, ms, runAppA, "driver")},
	}
	if len(d.Processes) != len(want) {
		t.Fatalf("got %d process types %+v, want %d", len(d.Processes), d.Processes, len(want))
	}
	for i, w := range want {
		p := d.Processes[i]
		if p.Type != w.typ || p.Processes != w.processes || p.MaxCPUCores == nil || p.MaxRSSBytes == nil {
			t.Errorf("row %d: got %+v, want %s with %d processes and both peaks", i, p, w.typ, w.processes)
			continue
		}
		if c := *p.MaxCPUCores; c.AppID != w.cpu.AppID || c.ExecutorID != w.cpu.ExecutorID || c.Time != w.cpu.Time ||
			c.Value < w.cpu.Value-1e-9 || c.Value > w.cpu.Value+1e-9 {
			t.Errorf("%s max CPU: got %+v, want %+v", w.typ, c, w.cpu)
		}
		if *p.MaxRSSBytes != w.rss {
			t.Errorf("%s max RSS: got %+v, want %+v", w.typ, *p.MaxRSSBytes, w.rss)
		}
	}

	// A run id with "/" and markup is one path segment when escaped.
	ts.getJSON(t, "/api/sparkdx/v1/runs/"+url.PathEscape(xssRun), &d)
	if d.ID != xssRun || len(d.AppList) != 1 || d.AppList[0].ID != runAppXSS || len(d.Processes) != 0 {
		t.Errorf("sparkdx run: got %s with %d apps and %d process types, want %s with %s and no samples",
			d.ID, len(d.AppList), len(d.Processes), xssRun, runAppXSS)
	}
	if code, body := ts.get(t, "/api/sparkdx/v1/runs/nope"); code != http.StatusNotFound || !bytes.Contains(body, []byte("unknown run")) {
		t.Errorf("unknown run: got %d %s", code, body)
	}

	// The apps API names each application's run and filters by it.
	var apps []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps?run="+url.QueryEscape(dagRun), &apps)
	if len(apps) != 2 {
		t.Errorf("apps?run=: got %d apps, want 2", len(apps))
	}
	var none []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps/"+runAppNone, &none)
	if len(none) != 1 || none[0].Run != nil {
		t.Errorf("an app without run properties: got %+v, want one attempt in no run", none)
	}

	// Pages: the run's name stays text, its table has the four types.
	_, page := ts.get(t, "/runs")
	if bytes.Contains(page, []byte("<script>alert('run')")) || !bytes.Contains(page, []byte("&lt;script&gt;alert(&#39;run&#39;)&lt;/script&gt;/nightly")) {
		t.Errorf("runs page: the run name is not escaped")
	}
	_, page = ts.get(t, "/runs/"+url.PathEscape(dagRun))
	for _, s := range []string{`data-type="driver"`, `data-type="executor"`, `data-type="python"`, `data-type="launcher"`, "3.50", "1.1 GiB"} {
		if !bytes.Contains(page, []byte(s)) {
			t.Errorf("run page: no %q", s)
		}
	}
}

func ids(rs []fleet.RunSummary) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
