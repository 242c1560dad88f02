package analyze_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// scenarioResults analyzes a real-Spark scenario's recorded logs, one per
// Spark line (testdata/scenarios/NAME/spark-*/).
func scenarioResults(t *testing.T, name string) map[string]*analyze.Result {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", name, "spark-*", "app-*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recorded logs for scenario %s (%v)", name, err)
	}
	out := map[string]*analyze.Result{}
	for _, p := range paths {
		logs, err := eventlog.Open(context.Background(), p, eventlog.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a, _, err := replay.Log(context.Background(), logs[0], replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(p))] = analyze.Analyze(a)
	}
	return out
}

// A Python exception on every attempt of one task: one cause naming the
// Python exception and the user's line, which failed the stage and the job.
func TestFailuresPythonException(t *testing.T) {
	for line, r := range scenarioResults(t, "python-exception") {
		t.Run(line, func(t *testing.T) {
			f := r.Failures
			if len(f.Causes) != 1 {
				t.Fatalf("causes = %+v, want one", f.Causes)
			}
			c := f.Causes[0]
			if c.Error.Class != "ValueError" || c.Error.Message != "cannot parse record 777" {
				t.Errorf("error = %q: %q, want ValueError: cannot parse record 777", c.Error.Class, c.Error.Message)
			}
			if filepath.Base(c.Error.Frame.File) != "workload.py" || c.Error.Frame.Line != 11 || c.Error.Frame.Function != "parse" {
				t.Errorf("frame = %+v, want workload.py:11 in parse", c.Error.Frame)
			}
			if c.Attempts != 4 || c.Tasks != 1 || c.MaxAttempts != 4 || c.Recovered != 0 {
				t.Errorf("attempts %d tasks %d max %d recovered %d, want 4 1 4 0", c.Attempts, c.Tasks, c.MaxAttempts, c.Recovered)
			}
			if !c.Fatal() || len(c.FailedStages) != 1 {
				t.Errorf("failed jobs %v stages %v, want the job and its stage", c.FailedJobs, c.FailedStages)
			}
			if len(f.Jobs) != 1 || f.Jobs[0].Cause != 0 || f.Jobs[0].Kind != analyze.JobAborted {
				t.Errorf("jobs = %+v, want one aborted by cause 0", f.Jobs)
			}
			if len(c.ExecutorIDs) == 0 || len(c.Hosts) == 0 || c.WastedMs <= 0 {
				t.Errorf("executors %v hosts %v wasted %d", c.ExecutorIDs, c.Hosts, c.WastedMs)
			}
		})
	}
}

// Two tasks fail once and succeed on retry: a cause that failed nothing
// but cost the failed attempts' time.
func TestFailuresRecovered(t *testing.T) {
	for line, r := range scenarioResults(t, "task-retry") {
		t.Run(line, func(t *testing.T) {
			f := r.Failures
			if len(f.Causes) != 1 || len(f.Jobs) != 0 {
				t.Fatalf("causes %+v jobs %+v, want one cause and no failed job", f.Causes, f.Jobs)
			}
			c := f.Causes[0]
			if c.Error.Class != "RuntimeError" || c.Error.Frame.Function != "flaky" {
				t.Errorf("error = %+v", c.Error)
			}
			if c.Tasks != 2 || c.Recovered != 2 || c.Fatal() || c.WastedMs <= 0 {
				t.Errorf("tasks %d recovered %d fatal %v wasted %d", c.Tasks, c.Recovered, c.Fatal(), c.WastedMs)
			}
		})
	}
}

// An executor killed with SIGKILL: its running tasks fail with
// ExecutorLostFailure, one cause per lost executor.
func TestFailuresExecutorLost(t *testing.T) {
	for line, r := range scenarioResults(t, "executor-killed") {
		t.Run(line, func(t *testing.T) {
			var lost []analyze.FailureCause
			for _, c := range r.Failures.Causes {
				if c.Reason == "ExecutorLostFailure" {
					lost = append(lost, c)
				}
			}
			if len(lost) != 1 || len(lost[0].ExecutorIDs) != 1 {
				t.Fatalf("executor-lost causes = %+v, want one naming one executor", lost)
			}
		})
	}
}

// Spark 1.2's failed job (shared corpus): the JVM exception and the REPL
// line that threw it, and the job it aborted.
func TestFailuresSharedJVM(t *testing.T) {
	r := analyze.Analyze(replayShared(t, "spark-events", "local-1422981780767"))
	f := r.Failures
	if len(f.Causes) != 1 || len(f.Jobs) != 1 {
		t.Fatalf("causes %+v jobs %+v", f.Causes, f.Jobs)
	}
	c := f.Causes[0]
	want := analyze.TaskError{Class: "java.lang.RuntimeException", Message: "got a 3, failing",
		Frame: analyze.Frame{File: "<console>", Line: 18, Function: "$line11.$read$$iwC$$iwC$$iwC$$iwC$$anonfun$1.apply"}}
	if c.Error != want {
		t.Errorf("error = %+v, want %+v", c.Error, want)
	}
	if !slices.Equal(c.FailedJobs, []int{1}) || !slices.Equal(c.FailedStages, []int{2}) || f.Jobs[0].Cause != 0 {
		t.Errorf("failed jobs %v stages %v job cause %d", c.FailedJobs, c.FailedStages, f.Jobs[0].Cause)
	}
}

// Every shared log: causes add up to the failed attempts the stages count,
// and job failures point at a cause in range.
func TestFailuresAddUp(t *testing.T) {
	for _, rel := range sharedLogs(t) {
		r := analyze.Analyze(replayShared(t, rel))
		failed := 0
		for _, s := range r.Stages {
			failed += s.Failed
		}
		n := 0
		for _, c := range r.Failures.Causes {
			n += c.Attempts
			if c.Recovered > c.Tasks || c.Tasks > c.Attempts {
				t.Errorf("%s: cause %+v: recovered ≤ tasks ≤ attempts broken", rel, c)
			}
		}
		if n != failed {
			t.Errorf("%s: causes hold %d failed attempts, stages count %d", rel, n, failed)
		}
		for _, j := range r.Failures.Jobs {
			if j.Cause < -1 || j.Cause >= len(r.Failures.Causes) {
				t.Errorf("%s: job %d cause %d out of range", rel, j.JobID, j.Cause)
			}
		}
	}
}
