package server

import (
	"bytes"
	"cmp"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestMetrics scrapes /metrics: it parses as the Prometheus text format,
// has one spark_app_info per attempt (finished and running) and the
// ingest counters.
func TestMetrics(t *testing.T) {
	live := t.TempDir()
	data, err := os.ReadFile(sparktest.Path(t, "spark-events", tailApp))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(tailApp), []byte("local-4000000000001"))
	half := bytes.SplitAfter(data, []byte("\n"))
	if err := os.WriteFile(filepath.Join(live, "local-4000000000001.inprogress"), bytes.Join(half[:len(half)/2], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"), live)
	ts.waitIdle(t)
	code, body := ts.get(t, "/metrics")
	if code != 200 {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	if f := families["spark_app_info"]; f == nil || len(f.GetMetric()) != 20 {
		n := 0
		if f != nil {
			n = len(f.GetMetric())
		}
		t.Errorf("spark_app_info: got %d series, want 20 (19 attempts + 1 running)", n)
	}
	for _, name := range []string{"sparkdx_serve_queue_depth", "sparkdx_serve_logs", "sparkdx_serve_ingest_events_total",
		"sparkdx_serve_logs_running", "spark_resource_wait_seconds", "spark_stage_task_duration_seconds", "spark_findings"} {
		if families[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	if !regexp.MustCompile(`spark_app_info\{[^}]*app_id="local-4000000000001"`).Match(body) {
		t.Errorf("the running app is not in /metrics")
	}
	if !strings.Contains(string(body), "sparkdx_serve_logs_running 1") {
		t.Errorf("want sparkdx_serve_logs_running 1")
	}
}

// TestMetricsFinishedBound: /metrics reports the finished applications
// that ended last, at most MetricsMaxFinished of them, and counts the
// others as dropped.
func TestMetricsFinishedBound(t *testing.T) {
	ts := startServerWith(t, t.TempDir(), []string{sparktest.Path(t, "spark-events")}, func(ic *ingest.Config, sc *Config) {
		ic.Poll = 50 * time.Millisecond
		sc.MetricsWindow = 100 * 365 * 24 * time.Hour
		sc.MetricsMaxFinished = 3
	})
	ts.waitIdle(t)
	var apps []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps?sort=-start", &apps)
	slices.SortStableFunc(apps, func(a, b fleet.AppSummary) int { return cmp.Compare(b.EndTime, a.EndTime) })
	want := map[string]bool{}
	for _, a := range apps[:3] {
		want[a.ID] = true
	}
	_, body := ts.get(t, "/metrics")
	got := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^spark_app_info\{[^}]*app_id="([^"]+)"`).FindAllStringSubmatch(string(body), -1) {
		got[m[1]] = true
	}
	if !maps.Equal(got, want) {
		t.Errorf("/metrics reports %v, want the three that ended last %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	if m := regexp.MustCompile(`(?m)^sparkdx_serve_apps_dropped (\d+)`).FindStringSubmatch(string(body)); m == nil || m[1] != strconv.Itoa(len(apps)-3) {
		t.Errorf("sparkdx_serve_apps_dropped %v, want %d", m, len(apps)-3)
	}
}

// The run an application's properties name labels its spark_app_info, so
// dashboards pick applications by orchestrator run and task; an
// application in no run has no run labels.
func TestMetricsRunLabels(t *testing.T) {
	ts := startServer(t, t.TempDir(), "", runLogs(t))
	ts.waitIdle(t)
	_, body := ts.get(t, "/metrics")
	for _, tc := range []struct{ app, want string }{
		{runAppA, `run_id="` + dagRun + `",run_name="` + dagRunName + `",run_source="openlineage-root",run_task="etl_daily.load_orders"`},
		{runAppB, `run_id="` + dagRun + `",run_name="` + dagRunName + `",run_source="openlineage-root",run_task="etl_daily.report"`},
		{runAppNone, `run_id="",run_name="",run_source="",run_task=""`},
	} {
		line := regexp.MustCompile(`(?m)^spark_app_info\{app_id="` + regexp.QuoteMeta(tc.app) + `".*$`).Find(body)
		if !bytes.Contains(line, []byte(tc.want)) {
			t.Errorf("%s: got %s, want labels %s", tc.app, line, tc.want)
		}
	}
}
