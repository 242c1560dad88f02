package scenario

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// whatIfTolerance is the largest relative error accepted between the
// what-if estimate of one run and the job time of the same workload run
// with that many executors (issue 13: within 15 %).
const whatIfTolerance = 0.15

// TestWhatIfAgainstReality runs one workload with 1, 2 and 4 executors of
// one core on a real cluster and checks the what-if estimates of one run
// against the job time of another (2 → 1, 1 → 2, 2 → 4 executors). Job time is
// the wall time inside jobs (the app's duration less the driver's time
// outside them), which is what the what-if simulates: executor start-up
// and the driver's own work do not change with the executor count.
func TestWhatIfAgainstReality(t *testing.T) {
	lines := sparktest.SparkLines(t)
	line := lines[len(lines)-1] // the schedule does not depend on the Spark line
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 4, CoresPerWorker: 1, MemoryPerWorker: "1g"})
	program, err := filepath.Abs(filepath.Join("testdata", "whatif.py"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(executors int) *analyze.Result {
		logDir := t.TempDir()
		// SPARKDX_WHATIF_LOGS=DIR keeps the three logs for a look.
		if keep := os.Getenv("SPARKDX_WHATIF_LOGS"); keep != "" {
			logDir = filepath.Join(keep, strconv.Itoa(executors))
			os.MkdirAll(logDir, 0o755)
		}
		conf := sparktest.DefaultConf(t, logDir)
		conf["spark.cores.max"] = strconv.Itoa(executors)
		conf["spark.executor.cores"] = "1"
		res, err := c.Submit(context.Background(), sparktest.Submission{Program: program, Conf: conf, EventLogDir: logDir})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%d executors: exit %d, %v\n%s\n%s", executors, res.ExitCode, err, res.Output, c.Logs())
		}
		path, err := onlyLog(logDir)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Diagnose(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Result.CriticalPath.MaxExecutors; got != executors {
			t.Fatalf("asked for %d executors, the log shows %d", executors, got)
		}
		return d.Result
	}
	jobMs := func(r *analyze.Result) int64 { return r.DurationMs - r.CriticalPath.DriverMs }
	// predicted is the job time the what-if of r gives for n executors.
	predicted := func(r *analyze.Result, n int) int64 {
		for _, w := range r.WhatIf {
			if w.Executors == n {
				return w.EstimatedMs - r.CriticalPath.DriverMs
			}
		}
		t.Fatalf("no what-if for %d executors in a run of %d: %+v", n, r.CriticalPath.MaxExecutors, r.WhatIf)
		return 0
	}
	runs := map[int]*analyze.Result{}
	for _, n := range []int{1, 2, 4} {
		runs[n] = run(n)
	}
	for _, c := range []struct{ from, to int }{{2, 1}, {1, 2}, {2, 4}} {
		want, got := jobMs(runs[c.to]), predicted(runs[c.from], c.to)
		errRatio := math.Abs(float64(got-want)) / float64(want)
		t.Logf("%d → %d executors: what-if %d ms of jobs, measured %d ms: error %.1f%%", c.from, c.to, got, want, 100*errRatio)
		// Executors beyond the machine's cores compete for them (four
		// starting their Python workers at once on two cores take twice
		// as long): that run measures the machine, not the what-if.
		if c.to > runtime.NumCPU() || c.from > runtime.NumCPU() {
			t.Logf("%d → %d executors: not judged on %d cores", c.from, c.to, runtime.NumCPU())
			continue
		}
		if errRatio > whatIfTolerance {
			t.Errorf("%d → %d executors: predicted %d ms, measured %d ms (error %.0f%%, want ≤ %.0f%%)",
				c.from, c.to, got, want, 100*errRatio, 100*whatIfTolerance)
		}
	}
}
