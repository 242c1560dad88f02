package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
)

// The regression series (testdata/regression-series/README.md): real runs
// of one workload on a standalone cluster of two one-core Workers —
// three unchanged, one reading 3× the input, one with 200 shuffle
// partitions instead of 8, one on half the executors, one unchanged —
// that serve must flag with the right causes, and only those.
const seriesDir = "testdata/regression-series"

// seriesConf is what every run of the series sets on top of
// sparktest.DefaultConf: 8 shuffle partitions that AQE keeps (the sink
// costs per partition), one scan task per input file, zstd event logs.
func seriesConf() map[string]string {
	return map[string]string{
		"spark.sql.shuffle.partitions":                  "8",
		"spark.sql.adaptive.coalescePartitions.enabled": "false",
		"spark.sql.files.openCostInBytes":               "134217728",
		"spark.eventLog.compress":                       "true",
		"spark.eventLog.compression.codec":              "zstd",
	}
}

// seriesStep is one run of the series and what serve must say of it.
type seriesStep struct {
	Name  string            `json:"name"`
	Files int               `json:"files"` // input files of seriesRows rows each
	Conf  map[string]string `json:"conf"`  // on top of seriesConf
	// Cause is the cause serve must give the run, naming Names; none:
	// the run is unchanged and must not be flagged. Not are the causes it
	// must not give.
	Cause string   `json:"cause"`
	Names string   `json:"names"`
	Not   []string `json:"not"`
}

const seriesRows = 20_000

// seriesSteps are the runs in the order they run.
func seriesSteps() []seriesStep {
	return []seriesStep{
		{Name: "baseline-1", Files: 8},
		{Name: "baseline-2", Files: 8},
		{Name: "baseline-3", Files: 8},
		{Name: "input-3x", Files: 24, Cause: regress.CauseInput, Names: "read 3.0× the input",
			Not: []string{regress.CauseConfig, regress.CauseResources}},
		{Name: "partitions-200", Files: 8, Conf: map[string]string{"spark.sql.shuffle.partitions": "200"},
			Cause: regress.CauseConfig, Names: "spark.sql.shuffle.partitions 8 → 200", Not: []string{regress.CauseInput, regress.CauseResources}},
		{Name: "half-executors", Files: 8, Conf: map[string]string{"spark.cores.max": "1"},
			Cause: regress.CauseResources, Names: "1 executors with 1 cores against 2 with 2", Not: []string{regress.CauseInput, regress.CauseConfig}},
		{Name: "unchanged", Files: 8},
	}
}

// seriesRecord is recorded.json: per Spark line, the key of the series
// the logs were recorded with and each step's log, in run order.
type seriesRecord map[string]struct {
	Key      string    `json:"key"`
	Recorded time.Time `json:"recorded"`
	Logs     []string  `json:"logs"`
}

// seriesKey hashes what makes the recorded logs: the workload, the
// configuration and the steps. A change of any needs a new recording.
func seriesKey(t testing.TB) string {
	t.Helper()
	w, err := os.ReadFile(filepath.Join(seriesDir, "workload.py"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := json.Marshal(struct {
		Conf  map[string]string
		Rows  int
		Steps []seriesStep
	}{seriesConf(), seriesRows, seriesSteps()})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(append(w, plan...))
	return hex.EncodeToString(h[:])
}

func readSeriesRecord(t testing.TB) seriesRecord {
	t.Helper()
	rec := seriesRecord{}
	b, err := os.ReadFile(filepath.Join(seriesDir, "recorded.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err == nil {
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", filepath.Join(seriesDir, "recorded.json"), err)
		}
	}
	return rec
}

// TestRegressionSeries serves each Spark line's recorded series and checks
// serve's verdicts and causes (checkSeries). The logs must have been
// recorded with today's workload and steps (the key).
func TestRegressionSeries(t *testing.T) {
	rec := readSeriesRecord(t)
	if len(rec) == 0 {
		t.Fatalf("no recorded series in %s (SPARKDX_REGRESSION_SERIES=1 records it)", seriesDir)
	}
	key := seriesKey(t)
	for line, r := range rec {
		t.Run(line, func(t *testing.T) {
			if r.Key != key {
				t.Fatalf("recorded with key %.12s, the series is now %.12s: record it again (SPARKDX_REGRESSION_SERIES=1)", r.Key, key)
			}
			checkSeries(t, filepath.Join(seriesDir, "spark-"+line), r.Logs)
		})
	}
}

// checkSeries serves the logs of dir (the series' runs, logs in run
// order) and checks each run's verdict and causes in its job's API
// answer. The runs last seconds, so a regression must add 2 s rather
// than the default 10 s; the rest is serve's default.
func checkSeries(t *testing.T, dir string, logs []string) {
	t.Helper()
	steps := seriesSteps()
	if len(logs) != len(steps) {
		t.Fatalf("got %d logs, want one per step: %d", len(logs), len(steps))
	}
	ts := startServerWith(t, t.TempDir(), []string{dir}, func(_ *ingest.Config, sc *Config) {
		sc.Regression = regress.DefaultConfig()
		sc.Regression.MinDeltaMs = 2_000
	})
	ts.waitIdle(t)
	var jobs []Job
	ts.getJSON(t, "/api/sparkdx/v1/jobs", &jobs)
	if len(jobs) != 1 {
		t.Fatalf("got %d jobs, want the series' one", len(jobs))
	}
	var job Job
	ts.getJSON(t, "/api/sparkdx/v1/jobs/"+url.PathEscape(jobs[0].Key), &job)
	if len(job.Runs) != len(steps) {
		t.Fatalf("got %d runs, want %d", len(job.Runs), len(steps))
	}
	for i, st := range steps {
		run := job.Runs[i]
		if got := filepath.Base(run.Log); got != logs[i] {
			t.Fatalf("run %d: log %s, want %s (%s): the runs out of order", i, got, logs[i], st.Name)
		}
		t.Run(st.Name, func(t *testing.T) { checkStep(t, st, run) })
	}
}

func checkStep(t *testing.T, st seriesStep, run JobRun) {
	regressed := run.Verdict != nil && run.Verdict.Regressed
	what := fmt.Sprintf("%d ms, %s", run.WallMs, describeVerdict(run))
	t.Logf("%s; regressed %v; causes %v", what, regressed, run.Causes)
	if st.Cause == "" {
		if regressed {
			t.Errorf("unchanged run: got regressed (%s), want not", what)
		}
		return
	}
	if !regressed {
		t.Fatalf("got not regressed (%s), want regressed with %s", what, st.Cause)
	}
	kinds := map[string]string{}
	for _, c := range run.Causes {
		kinds[c.Kind] = c.Detail
	}
	if d, ok := kinds[st.Cause]; !ok || !strings.Contains(d, st.Names) {
		t.Errorf("got causes %v, want %s naming %q", kinds, st.Cause, st.Names)
	}
	for _, k := range st.Not {
		if d, ok := kinds[k]; ok {
			t.Errorf("got cause %s (%s), want none", k, d)
		}
	}
}

func describeVerdict(r JobRun) string {
	if r.Verdict == nil || r.Baseline == nil {
		return "no baseline"
	}
	return fmt.Sprintf("%.2f× the median %.0f ms, %.1f deviations", r.Verdict.Ratio, r.Baseline.Wall.Median, r.Verdict.Sigmas)
}
