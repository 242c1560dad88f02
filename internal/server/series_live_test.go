package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRegressionSeriesLive records the regression series on a real
// standalone cluster of each Spark line (two one-core Workers), checks
// serve's verdicts on the fresh logs (checkSeries) and, when they pass,
// replaces the committed logs and recorded.json. It runs only with
// SPARKDX_REGRESSION_SERIES=1 (-p 1; a few minutes a line):
//
//	SPARKDX_REGRESSION_SERIES=1 go test ./internal/server -run TestRegressionSeriesLive -p 1 -timeout 30m
//
// SPARKDX_REGRESSION_SERIES=3.5.9 records that line only.
func TestRegressionSeriesLive(t *testing.T) {
	sparktest.Live(t)
	want := os.Getenv("SPARKDX_REGRESSION_SERIES")
	if want == "" {
		t.Skip("records the regression series on real Spark: set SPARKDX_REGRESSION_SERIES=1 (or a Spark version)")
	}
	input := t.TempDir()
	writeSeriesInput(t, input)
	key := seriesKey(t)
	for _, version := range sparktest.SparkVersions(t) {
		if want != "1" && want != version {
			continue
		}
		t.Run(version, func(t *testing.T) {
			line := sparktest.SparkLineOf(t, version)
			c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 2, CoresPerWorker: 1, MemoryPerWorker: "1g"})
			// A first run on a fresh cluster pays for cold caches (20 s more
			// than the next in the first recording): it would weigh in the
			// baseline as a slow run, so a warm-up run, not kept, goes first.
			runSeriesStep(t, c, seriesStep{Name: "warm-up", Files: 8}, filepath.Join(input, "8"), t.TempDir())
			logs := t.TempDir()
			var names []string
			for i, st := range seriesSteps() {
				start := time.Now()
				name := runSeriesStep(t, c, st, filepath.Join(input, fmt.Sprint(st.Files)), logs)
				t.Logf("step %d %s: %s in %s", i, st.Name, name, time.Since(start).Round(time.Second))
				names = append(names, name)
			}
			c.Stop()
			checkSeries(t, logs, names)
			if t.Failed() {
				return
			}
			keepSeries(t, version, key, logs, names)
		})
	}
}

// writeSeriesInput writes the inputs the steps read: dir/N holds N CSV
// files of seriesRows rows each, every file alike (3× the files is 3×
// the bytes).
func writeSeriesInput(t *testing.T, dir string) {
	var b strings.Builder
	for i := range seriesRows {
		fmt.Fprintf(&b, "%d,%d.%03d\n", i, i%977, i%1000)
	}
	files := map[int]bool{}
	for _, st := range seriesSteps() {
		files[st.Files] = true
	}
	for n := range files {
		d := filepath.Join(dir, fmt.Sprint(n))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("part-%03d.csv", i)), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// runSeriesStep submits the workload for st, its event log moved to
// logs; it returns the log's name.
func runSeriesStep(t *testing.T, c *sparktest.Cluster, st seriesStep, input, logs string) string {
	t.Helper()
	dir := t.TempDir()
	conf := sparktest.DefaultConf(t, dir)
	for k, v := range seriesConf() {
		conf[k] = v
	}
	for k, v := range st.Conf {
		conf[k] = v
	}
	program, err := filepath.Abs(filepath.Join(seriesDir, "workload.py"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Submit(context.Background(), sparktest.Submission{Program: program, Args: []string{input}, Conf: conf, EventLogDir: dir})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%s: exit %d, %v:\n%s\n%s", st.Name, res.ExitCode, err, res.Output, c.Logs())
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*.zstd"))
	if len(found) != 1 {
		t.Fatalf("%s: %d finished zstd event logs in %s, want 1", st.Name, len(found), dir)
	}
	name := filepath.Base(found[0])
	if err := os.Rename(found[0], filepath.Join(logs, name)); err != nil {
		t.Fatal(err)
	}
	return name
}

// keepSeries replaces the committed logs of version by those in logs and
// records their order and the key in recorded.json.
func keepSeries(t *testing.T, version, key, logs string, names []string) {
	dst := filepath.Join(seriesDir, "spark-"+version)
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(logs, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec := readSeriesRecord(t)
	r := rec[version]
	r.Key, r.Recorded, r.Logs = key, time.Now().UTC().Truncate(time.Second), names
	rec[version] = r
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seriesDir, "recorded.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d logs in %s (commit them and recorded.json)", len(names), dst)
}
