package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// whatIfTolerance is the largest relative error accepted between the
// what-if estimate of one run and the job time of the same workload run
// with that many executors (issue 13: within 15 %).
const whatIfTolerance = 0.15

// whatIfDir holds the what-if workload, the logs of its recorded runs
// (spark-<version>/<executors>/<log>) and their verdict (VerdictFile).
const whatIfDir = "testdata/whatif"

// whatIfFile is the file of this package whose code decides what the
// what-if runs submit: part of their key.
const whatIfFile = "internal/test/scenario/whatifrun_test.go"

// TestWhatIfAgainstReality checks the what-if estimates of one run of a
// workload against the job time of another run with a different executor
// count (2 → 1, 1 → 2, 2 → 4 executors), on logs real Spark wrote: the
// runs are recorded once per key — the workload, the Spark pin, the
// cluster harness and the code that submits them (whatIfKey) — and their
// logs committed; an unchanged key checks today's what-if on the committed
// logs, a changed one (or -update, SPARKDX_LIVE=all) runs the workload
// live again on the newest Spark line. Job time is the wall time inside
// jobs (the app's duration less the driver's time outside them), which is
// what the what-if simulates: executor start-up and the driver's own work
// do not change with the executor count.
func TestWhatIfAgainstReality(t *testing.T) {
	sparktest.Live(t)
	versions := sparktest.SparkVersions(t)
	version := versions[len(versions)-1] // the schedule does not depend on the Spark line
	root := repoRoot(t)
	key, err := whatIfKey(root, version)
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := (&Scenario{Name: "whatif", Dir: whatIfDir}).Verdicts()
	if err != nil {
		t.Fatal(err)
	}
	recorded, ok := verdicts[version]
	logs, logErr := whatIfLogs(version)
	every := *update || os.Getenv("SPARKDX_LIVE") == "all"
	if !every && ok && logErr == nil && recorded.Key == key.Key {
		t.Logf("live runs reused: key %.12s passed on %s on %d cores (SPARKDX_LIVE=all runs them again); "+
			"TestWhatIfCommittedLogs checks their logs", key.Key, recorded.Passed.Format(time.DateOnly), recorded.Cores)
		return
	}
	switch {
	case every:
		t.Logf("runs live: -update or SPARKDX_LIVE=all")
	case !ok:
		t.Logf("runs live: no recorded verdict in %s", filepath.Join(whatIfDir, VerdictFile))
	case logErr != nil:
		t.Logf("runs live: %v", logErr)
	default:
		t.Logf("runs live: changed since its recorded run: %v", recorded.Changed(key))
	}
	logs = runWhatIf(t, sparktest.SparkLineOf(t, version))
	checkWhatIf(t, logs, runtime.NumCPU())
	if t.Failed() {
		return
	}
	if *update {
		keepWhatIf(t, version, logs)
	}
	key.Passed, key.Cores = time.Now().UTC().Truncate(time.Second), runtime.NumCPU()
	key.Log = filepath.Base(logs[whatIfExecutors[0]])
	if err := (&Scenario{Name: "whatif", Dir: whatIfDir}).Record(version, key); err != nil {
		t.Fatal(err)
	}
	t.Logf("passed live; verdict recorded in %s (commit it)", filepath.Join(whatIfDir, VerdictFile))
}

// TestWhatIfCommittedLogs checks today's what-if on the committed logs of
// the recorded what-if runs (TestWhatIfAgainstReality), on every Spark
// line that has them; it needs no Spark.
func TestWhatIfCommittedLogs(t *testing.T) {
	verdicts, err := (&Scenario{Name: "whatif", Dir: whatIfDir}).Verdicts()
	if err != nil {
		t.Fatal(err)
	}
	if len(verdicts) == 0 {
		t.Fatalf("no recorded what-if runs in %s: record them (go test -run TestWhatIfAgainstReality -update)",
			filepath.Join(whatIfDir, VerdictFile))
	}
	for version, v := range verdicts {
		t.Run(version, func(t *testing.T) {
			logs, err := whatIfLogs(version)
			if err != nil {
				t.Fatal(err)
			}
			checkWhatIf(t, logs, v.Cores)
		})
	}
}

// whatIfKey is what decides the what-if runs on Spark version: the pin,
// the cluster harness, the workload and the code that submits it.
func whatIfKey(root, version string) (Verdict, error) {
	files := []string{filepath.ToSlash(filepath.Join(".ci", "spark", version+".txt")), whatIfFile,
		"internal/test/scenario/" + whatIfDir + "/workload.py"}
	files = append(files, harness()...)
	v, err := keyOf(root, files)
	if err != nil {
		return Verdict{}, fmt.Errorf("what-if: key: %w", err)
	}
	return v, nil
}

// whatIfLogs returns the committed log of each executor count's run on
// Spark version.
func whatIfLogs(version string) (map[int]string, error) {
	logs := map[int]string{}
	for _, n := range whatIfExecutors {
		path, err := onlyLog(filepath.Join(whatIfDir, "spark-"+version, strconv.Itoa(n)))
		if err != nil {
			return nil, fmt.Errorf("no committed log of %d executors: %w", n, err)
		}
		logs[n] = path
	}
	return logs, nil
}

// keepWhatIf replaces the committed logs of Spark version by logs.
func keepWhatIf(t *testing.T, version string, logs map[int]string) {
	dst := filepath.Join(whatIfDir, "spark-"+version)
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	for n, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(dst, strconv.Itoa(n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkWhatIf compares the what-if of each run with the job time of the
// run it predicts. cores is the CPU count of the machine the runs were
// recorded on: executors beyond it competed for the cores (four starting
// their Python workers at once on two cores take twice as long), so such a
// pair measures the machine, not the what-if, and is reported only.
func checkWhatIf(t *testing.T, logs map[int]string, cores int) {
	runs := map[int]*analyze.Result{}
	for _, n := range whatIfExecutors {
		d, err := Diagnose(context.Background(), logs[n])
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Result.CriticalPath.MaxExecutors; got != n {
			t.Fatalf("%s: asked for %d executors, the log shows %d", logs[n], n, got)
		}
		runs[n] = d.Result
	}
	for _, c := range []struct{ from, to int }{{2, 1}, {1, 2}, {2, 4}} {
		want := whatIfJobMs(runs[c.to])
		got, err := whatIfPredicted(runs[c.from], c.to)
		if err != nil {
			t.Fatal(err)
		}
		errRatio := math.Abs(float64(got-want)) / float64(want)
		t.Logf("%d → %d executors: what-if %d ms of jobs, measured %d ms: error %.1f%%", c.from, c.to, got, want, 100*errRatio)
		if c.to > cores || c.from > cores {
			t.Logf("%d → %d executors: not judged (recorded on %d cores)", c.from, c.to, cores)
			continue
		}
		if errRatio > whatIfTolerance {
			t.Errorf("%d → %d executors: predicted %d ms, measured %d ms (error %.0f%%, want ≤ %.0f%%)",
				c.from, c.to, got, want, 100*errRatio, 100*whatIfTolerance)
		}
	}
}

// whatIfJobMs is a run's job time.
func whatIfJobMs(r *analyze.Result) int64 { return r.DurationMs - r.CriticalPath.DriverMs }

// whatIfPredicted is the job time the what-if of r gives for n executors.
func whatIfPredicted(r *analyze.Result, n int) (int64, error) {
	for _, w := range r.WhatIf {
		if w.Executors == n {
			return w.EstimatedMs - r.CriticalPath.DriverMs, nil
		}
	}
	b, _ := json.Marshal(r.WhatIf)
	return 0, errors.New("no what-if for " + strconv.Itoa(n) + " executors in a run of " +
		strconv.Itoa(r.CriticalPath.MaxExecutors) + ": " + string(b))
}
