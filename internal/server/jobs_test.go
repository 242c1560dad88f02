package server

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
)

// TestJobRegressions serves the four real runs of the config-change
// scenario workload — one job, "scenario-config-change by root": on Spark
// 3.5.9 135 s (good config) and 165 s (bad), on 4.3.0 165 s (good) and
// 224 s (bad), in that order. With a baseline of two runs at least, the
// third run is within its spread and the fourth regressed 1.36×; the API
// lists the job, its page gives the grown stages as a cause, and /metrics
// exports spark_job_regression_ratio for it.
func TestJobRegressions(t *testing.T) {
	ts := configChangeServer(t, cost.PriceList{})
	var jobs []Job
	ts.getJSON(t, "/api/sparkdx/v1/jobs", &jobs)
	if len(jobs) != 1 || jobs[0].Key != "scenario-config-change by root" {
		t.Fatalf("jobs: got %+v, want one: scenario-config-change by root", jobs)
	}
	v := jobs[0].Latest.Verdict
	if v == nil || !v.Regressed || v.Ratio < 1.3 || v.Ratio > 1.4 {
		t.Fatalf("latest run: got verdict %+v, want regressed at about 1.36×", v)
	}
	var job Job
	ts.getJSON(t, "/api/sparkdx/v1/jobs/"+url.PathEscape(jobs[0].Key), &job)
	if len(job.Runs) != 4 {
		t.Fatalf("runs: got %d, want 4", len(job.Runs))
	}
	for i, want := range []bool{false, false, false, true} {
		r := job.Runs[i]
		got := r.Verdict != nil && r.Verdict.Regressed
		if got != want {
			t.Errorf("run %d (%s, %d ms): regressed %v, want %v", i, r.AppID, r.WallMs, got, want)
		}
	}
	var kinds []string
	for _, c := range job.Runs[3].Causes {
		kinds = append(kinds, c.Kind)
	}
	if !strings.Contains(strings.Join(kinds, " "), regress.CauseStages) {
		t.Errorf("causes of the regressed run: got %v, want %s among them", kinds, regress.CauseStages)
	}
	_, body := ts.get(t, "/metrics")
	if want := `spark_job_regression_ratio{app_id="` + job.Runs[3].AppID + `",job="scenario-config-change by root",regressed="true"}`; !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %s", want)
	}
}

// configChangeServer serves the config-change scenario's four real logs,
// judged with a baseline of two runs at least, priced at prices.
func configChangeServer(t *testing.T, prices cost.PriceList) *testServer {
	t.Helper()
	return configChangeServerWith(t, func(_ *ingest.Config, sc *Config) {
		sc.Regression = regress.Config{Runs: 10, MinRuns: 2, Ratio: 1.2, Sigmas: 3, MinDeltaMs: 10_000}
		sc.Prices = prices
	})
}

// configChangeServerWith serves a copy of the config-change scenario's
// four real logs (a test may change them) as set configures, once ingest
// is idle; the copies are in the server's only root.
func configChangeServerWith(t *testing.T, set func(*ingest.Config, *Config)) *testServer {
	t.Helper()
	dir := t.TempDir()
	for _, l := range configChangeLogs(t) {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(l)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ts := startServerWith(t, t.TempDir(), []string{dir}, set)
	ts.waitIdle(t)
	return ts
}

// configChangeLogs are the config-change scenario's four real logs.
func configChangeLogs(t *testing.T) []string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "config-change-*", "spark-*", "*.zstd"))
	if len(logs) != 4 {
		t.Fatalf("config-change scenario logs: got %d, want 4", len(logs))
	}
	return logs
}
