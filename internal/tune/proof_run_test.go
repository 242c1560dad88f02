package tune_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/test/scenario"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
	"github.com/sparkdx/sparkdx/internal/tune"
)

// This file is the proofs' measuring code: its bytes key every recorded
// proof (proofKey), so a change here re-records them. What judges a
// proof (Proof.check) and writes the table lives in proof_test.go: a
// recorded proof is re-judged on every run anyway.

// liveRun is one submission of a scenario's workload: its analysis and
// the event log Spark wrote (zstd, as the scenarios commit theirs).
type liveRun struct {
	d   *scenario.Diagnosis
	log string
}

func (r liveRun) jobMs() int64 { return r.d.Result.DurationMs - r.d.Result.CriticalPath.DriverMs }

// gbh is the executors' memory GB-hours: each container's memory over
// its lifetime, as cost counts it.
func (r liveRun) gbh() float64 { return cost.Of(r.d.Attempt, r.d.Result).Executors.MemoryGBHours }

// prove runs the scenario, tunes it and re-runs it with the plan. It
// returns the proof and the log of the run tune read.
//
// With "runs": N each side runs N times, alternating. Job time takes each
// side's fastest run: the one least slowed by the machine's other work.
// Memory GB-hours compare the run tune read with its re-run (the first
// run of each side): the predicted saving is the heap given back over
// that run's executor lifetimes, so only that run and its own re-run
// measure it; the fastest before-run need not be the one the prediction
// came from.
func prove(t *testing.T, line sparktest.SparkLine, dir string, sc tuningScenario) (Proof, string) {
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: sc.Cluster.Workers,
		CoresPerWorker: sc.Cluster.CoresPerWorker, MemoryPerWorker: sc.Cluster.MemoryPerWorker})
	defer c.Stop()
	loadAtStart := loadavg()
	run := func(extra map[string]string) liveRun {
		logDir := t.TempDir()
		conf := sparktest.DefaultConf(t, logDir)
		conf["spark.eventLog.compress"] = "true"
		conf["spark.eventLog.compression.codec"] = "zstd"
		maps.Copy(conf, sc.Conf)
		maps.Copy(conf, extra)
		res, err := c.Submit(context.Background(), sparktest.Submission{Program: filepath.Join(dir, "workload.py"), Conf: conf, EventLogDir: logDir})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("exit %d, %v\n%s\n%s", res.ExitCode, err, res.Output, c.Logs())
		}
		logs, _ := filepath.Glob(filepath.Join(logDir, "*"))
		if len(logs) != 1 {
			t.Fatalf("%s holds %d logs, want 1", logDir, len(logs))
		}
		if keep := os.Getenv("SPARKDX_TUNING_KEEP"); keep != "" { // to look into a proof that failed
			if b, err := os.ReadFile(logs[0]); err == nil {
				_ = os.WriteFile(filepath.Join(keep, filepath.Base(logs[0])), b, 0o644)
			}
		}
		d, err := scenario.Diagnose(context.Background(), logs[0])
		if err != nil {
			t.Fatal(err)
		}
		return liveRun{d, logs[0]}
	}
	read := run(nil)
	plan := tune.Recommend(read.d.Attempt, read.d.Result, read.d.Findings)
	for _, c := range plan.Changes {
		t.Logf("change %s %s → %s: %s; predicted %+d ms wall, %+.4f GB-h (%s)", c.Property, c.From, c.To, c.Why, c.Effect.WallMs, c.Effect.MemoryGBHours, c.Effect.Basis)
	}
	reran := run(plan.Conf())
	before, after := read, reran
	for i := 1; i < sc.Runs; i++ {
		b, a := run(nil), run(plan.Conf())
		t.Logf("run %d: jobs %d → %d ms", i+1, b.jobMs(), a.jobMs())
		if b.jobMs() < before.jobMs() {
			before = b
		}
		if a.jobMs() < after.jobMs() {
			after = a
		}
	}
	return Proof{Changes: plan.Conf(), BeforeJobMs: before.jobMs(), AfterJobMs: after.jobMs(),
		PredictedMs: plan.Predicted.WallMs, BeforeGBh: read.gbh(), AfterGBh: reran.gbh(), PredictedGBh: plan.Predicted.MemoryGBHours,
		Load: loadAtStart + " → " + loadavg(), Passed: time.Now().UTC().Truncate(time.Second)}, read.log
}

// loadavg is /proc/loadavg's 1-minute figure: how busy the machine was
// ("?" where there is none).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) == 0 {
		return "?"
	}
	f := string(b)
	for i, r := range f {
		if r == ' ' {
			return f[:i]
		}
	}
	return f
}
