package diagnose_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

// TestThresholdEdges runs rules on hand-made analysis results at and just
// below each documented threshold (docs/recipes/rules.md).
func TestThresholdEdges(t *testing.T) {
	stage := func(mod func(s *analyze.Stage)) *analyze.Result {
		s := analyze.Stage{StageID: 3, NumTasks: 100, DurationMs: 10 * mn, Outcomes: analyze.Outcomes{Succeeded: 100, Attempts: 100}}
		mod(&s)
		return &analyze.Result{DurationMs: 20 * mn, Stages: []analyze.Stage{s}}
	}
	// skewIn is a stage whose longest task ran ratio × the median and
	// read input × the median task's data.
	skewIn := func(ratio float64, maxMs int64, overStage, input float64) *analyze.Result {
		return stage(func(s *analyze.Stage) {
			s.TaskDurationMs = analyze.Quantiles{P50: int64(float64(maxMs) / ratio), Max: maxMs}
			s.SkewDuration, s.MaxTaskOverStage = ratio, overStage
			s.Longest = analyze.LongTask{DurationMs: maxMs, InputRatio: input}
		})
	}
	skew := func(ratio float64, maxMs int64, overStage float64) *analyze.Result {
		return skewIn(ratio, maxMs, overStage, 6)
	}
	// hosts is a stage on three hosts whose third ran n tasks at ratio ×
	// the others' 10 s median (1 core per host: no attempt, no executors).
	hosts := func(ratio float64, n int) *analyze.Result {
		return stage(func(s *analyze.Stage) {
			slow := int64(ratio * float64(10*sec))
			s.Hosts = []analyze.HostStat{{Host: "a", Tasks: 20, MedianTaskMs: 10 * sec, TaskTimeMs: 200 * sec},
				{Host: "b", Tasks: 20, MedianTaskMs: 10 * sec, TaskTimeMs: 200 * sec},
				{Host: "c", Tasks: n, MedianTaskMs: slow, TaskTimeMs: int64(n) * slow}}
		})
	}
	endsStage := func(r *analyze.Result) *analyze.Result {
		r.Stages[0].LongestTaskEndsStage = true
		return r
	}
	// failed is an app of dur whose one failure cause held a task back
	// delay ms and failed jobs.
	failed := func(delay, dur int64, jobs []int) *analyze.Result {
		c := analyze.FailureCause{Error: analyze.TaskError{Class: "java.io.IOException"}, Reason: "ExceptionFailure",
			Attempts: 1, Tasks: 1, Recovered: 1, MaxAttempts: 1, StageIDs: []int{3}, ExecutorIDs: []string{"1"},
			WastedMs: delay, DelayMs: delay, FailedJobs: jobs}
		if jobs != nil {
			c.Recovered, c.FailedStages = 0, []int{3}
		}
		o := analyze.Outcome{Job: -1, Cause: -1}
		if jobs != nil {
			o.Job, o.Cause, o.FailedJobs = jobs[0], 0, jobs
		}
		return &analyze.Result{DurationMs: dur, Failures: analyze.Failures{Causes: []analyze.FailureCause{c}, Outcome: o}}
	}
	app := func(wait, dur int64) *analyze.Result {
		return &analyze.Result{DurationMs: dur, Phases: analyze.Phases{ResourceWaitMs: wait}}
	}
	for _, c := range []struct {
		name string
		rule *diagnose.Rule
		res  *analyze.Result
		want diagnose.Severity
	}{
		{"skew 4× at 150 s", diagnose.DataSkew, skew(4, 150*sec, 0.75), diagnose.Warning},
		{"skew 3.9×", diagnose.DataSkew, skew(3.9, 150*sec, 0.75), diagnose.None},
		{"skew 10× on 5× the median's input", diagnose.DataSkew, skewIn(10, 600*sec, 0.9, 5), diagnose.Critical},
		{"10× on 4.9× the median's input: not skew", diagnose.DataSkew, skewIn(10, 600*sec, 0.9, 4.9), diagnose.None},
		{"10× on the median's input: a straggler, not skew", diagnose.DataSkew, skewIn(10, 600*sec, 0.9, 1), diagnose.None},
		{"10× on unknown input: not skew", diagnose.DataSkew, skewIn(10, 600*sec, 0.9, 0), diagnose.None},
		{"skew 4× costing 4.9 %", diagnose.DataSkew, skew(4, 78*sec, 0.75), diagnose.Info},
		{"skew 10× costing 45 %", diagnose.DataSkew, skew(10, 600*sec, 0.9), diagnose.Critical},
		{"skew 10× costing 15 %", diagnose.DataSkew, skew(10, 200*sec, 0.9), diagnose.Warning},
		{"skew 10× not setting the stage's end", diagnose.DataSkew, skew(10, 200*sec, 0.74), diagnose.None},
		{"straggler host 3.16× over 5 tasks, 1m48s of 20 min", diagnose.StragglerHost, hosts(3.16, 5), diagnose.Warning},
		{"straggler host 3.1×", diagnose.StragglerHost, hosts(3.1, 5), diagnose.None},
		{"straggler host 10× over 2 tasks", diagnose.StragglerHost, hosts(10, 2), diagnose.None},
		{"straggler host 10× over 3 tasks, 4m30s (22.5 %) of 20 min", diagnose.StragglerHost, hosts(10, 3), diagnose.Warning},
		{"straggler host 10× over 14 tasks, 10 min (the stage) of 20", diagnose.StragglerHost, hosts(10, 14), diagnose.Critical},
		{"straggler host 4× over 3 tasks of 100 ms", diagnose.StragglerHost, stage(func(s *analyze.Stage) {
			s.Hosts = []analyze.HostStat{{Host: "a", Tasks: 9, MedianTaskMs: 25, TaskTimeMs: 225}, {Host: "b", Tasks: 9, MedianTaskMs: 25, TaskTimeMs: 225},
				{Host: "c", Tasks: 3, MedianTaskMs: 100, TaskTimeMs: 300}}
		}), diagnose.Info},
		{"skew 10× started late, finishing last", diagnose.DataSkew, endsStage(skew(10, 200*sec, 0.5)), diagnose.Warning},
		{"skew 10× 5 s max", diagnose.DataSkew, skew(10, 5*sec, 1), diagnose.Info},
		{"spill 0.10", diagnose.Spill, stage(func(s *analyze.Stage) {
			s.ShuffleReadBytes, s.MemorySpilledBytes, s.DiskSpilledBytes = 100*gb, 10*gb, gb
		}), diagnose.Warning},
		{"spill 0.099", diagnose.Spill, stage(func(s *analyze.Stage) {
			s.ShuffleReadBytes, s.MemorySpilledBytes, s.DiskSpilledBytes = 1000*mb, 99*mb, 20*mb
		}), diagnose.None},
		{"spill 0.9, memory only, in a 10-min stage", diagnose.Spill, stage(func(s *analyze.Stage) {
			s.ShuffleReadBytes, s.MemorySpilledBytes = 10*gb, 9*gb
		}), diagnose.Critical},
		{"spill 0.9 in a 59-s stage of 20 min", diagnose.Spill, stage(func(s *analyze.Stage) {
			s.ShuffleReadBytes, s.MemorySpilledBytes, s.DiskSpilledBytes, s.DurationMs = 10*gb, 9*gb, gb, 59*sec
		}), diagnose.Info},
		{"spill above 3 TB", diagnose.Spill, stage(func(s *analyze.Stage) {
			s.InputBytes, s.MemorySpilledBytes, s.DiskSpilledBytes = 4<<40, 3<<40, 1<<40
		}), diagnose.Info},
		{"gc 0.20 in a stage of half the app", diagnose.GCPressure, stage(func(s *analyze.Stage) {
			s.RunTimeTotalMs, s.GCShareMs = 10*mn, 2*mn
		}), diagnose.Warning},
		{"gc 0.50 in a stage of the whole app", diagnose.GCPressure, stage(func(s *analyze.Stage) {
			s.RunTimeTotalMs, s.GCShareMs, s.DurationMs = 10*mn, 5*mn, 20*mn
		}), diagnose.Critical},
		{"gc 0.099", diagnose.GCPressure, stage(func(s *analyze.Stage) { s.RunTimeTotalMs, s.GCShareMs = 1000*sec, 99*sec }), diagnose.None},
		{"gc 0.5 of a 2-s stage", diagnose.GCPressure, stage(func(s *analyze.Stage) {
			s.RunTimeTotalMs, s.GCShareMs, s.DurationMs = 4*sec, 2*sec, 2*sec
		}), diagnose.Info},
		{"tiny 100 × 499 ms, overhead 5 % of wall", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 100, 499, 2, 2*mn, 10*mn
		}), diagnose.Warning},
		{"tiny 99 tasks", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 99, 100, 2, 10*mn, 20*mn
		}), diagnose.None},
		{"tiny 500 ms", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 5000, 500, 2, 10*mn, 40*mn
		}), diagnose.None},
		{"tiny 199 ms, overhead 25 % of wall", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.DeserializeMs = 20001, 199, 2, 8*mn, 2*mn
			s.TaskTimeMs = 66 * mn
		}), diagnose.Critical},
		{"tiny 199 ms, overhead 0.9 s", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 20001, 199, 2, 1800, 10*sec
		}), diagnose.Info},
		// 400 ms tasks paying 3 % in overhead: fewer tasks would save
		// nothing worth saying, even when the 3 % is a lot of time.
		{"tiny 400 ms, overhead 9.9 % of task time", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 20000, 400, 2, 149*sec, 1510*sec
		}), diagnose.None},
		{"tiny 400 ms, overhead 10 % of task time", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 20000, 400, 2, 150*sec, 1500*sec
		}), diagnose.Warning},
		// File listing outside any query: its task count is the paths'.
		{"tiny tasks listing files", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 2004, 62, 2, 8*mn, 10*mn
			s.Name, s.SQLExecutionID = "load at NativeMethodAccessorImpl.java:0", -1
		}), diagnose.None},
		{"tiny tasks named load inside a query", diagnose.TinyTasks, stage(func(s *analyze.Stage) {
			s.NumTasks, s.TaskDurationMs.P50, s.CoresAvailable, s.SchedulerDelayMs, s.TaskTimeMs = 2004, 62, 2, 8*mn, 10*mn
			s.Name, s.SQLExecutionID = "load at NativeMethodAccessorImpl.java:0", 4
		}), diagnose.Warning},
		{"pratio 0.99", diagnose.LowParallelism, stage(func(s *analyze.Stage) {
			s.CoresAvailable, s.PRatio = 101, 0.99
		}), diagnose.Warning},
		{"pratio 0.99 busy cluster", diagnose.LowParallelism, stage(func(s *analyze.Stage) {
			s.CoresAvailable, s.PRatio, s.ClusterBusy = 101, 0.99, 0.8
		}), diagnose.None},
		{"pratio 0.2 stage of 29.9 s", diagnose.LowParallelism, stage(func(s *analyze.Stage) {
			s.CoresAvailable, s.PRatio, s.DurationMs = 500, 0.2, 29_900
		}), diagnose.None},
		{"pratio 0.2 stage of 30 s, 2.5 % of the app", diagnose.LowParallelism, stage(func(s *analyze.Stage) {
			s.CoresAvailable, s.PRatio, s.DurationMs = 500, 0.2, 30*sec
		}), diagnose.Info},
		{"pratio 0.2 stage of 10 min, half the app", diagnose.LowParallelism, stage(func(s *analyze.Stage) {
			s.CoresAvailable, s.PRatio = 500, 0.2
		}), diagnose.Critical},
		{"median task 15 min", diagnose.LowParallelism, stage(func(s *analyze.Stage) {
			s.CoresAvailable, s.PRatio, s.RunTimeMs.P50, s.DurationMs = 50, 2, 15*mn, 20*mn
		}), diagnose.Critical},
		{"failures cost 5 % of wall", diagnose.TaskFailures, failed(mn, 20*mn, nil), diagnose.Warning},
		{"failures cost 4.9 % of wall", diagnose.TaskFailures, failed(mn, 20*mn+mn/2, nil), diagnose.Info},
		{"failures cost 50 % but 0.9 s", diagnose.TaskFailures, failed(900, 1800, nil), diagnose.Info},
		{"failures failed a job at 1 %", diagnose.TaskFailures, failed(12*sec, 20*mn, []int{0}), diagnose.Critical},
		{"wait 28 %, costing 27 %", diagnose.ResourceWait, app(6*mn, 1280*sec), diagnose.Critical},
		{"wait 25 %, costing 24 %", diagnose.ResourceWait, app(6*mn, 1420*sec), diagnose.Warning},
		{"wait 10 %, costing 5 %", diagnose.ResourceWait, app(40*sec, 400*sec), diagnose.Warning},
		{"wait 9.9 %", diagnose.ResourceWait, app(39*sec, 400*sec), diagnose.None},
		{"wait 50 % within executor start-up", diagnose.ResourceWait, app(20*sec, 40*sec), diagnose.None},
		{"wait 21 s of 44 s (the sql-aqe baseline)", diagnose.ResourceWait, app(21124, 44324), diagnose.Info},
		{"wait 28 s of 34 s (the resource-wait scenario)", diagnose.ResourceWait, app(28222, 33724), diagnose.Warning},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := diagnose.Run(&diagnose.Pass{Attempt: model.NewAttempt(), Result: c.res}, []*diagnose.Rule{c.rule})
			got := diagnose.Worst(fs)
			if got != c.want {
				t.Errorf("got %v, want %v:%s", got, c.want, dump(fs))
			}
			for _, f := range fs {
				if len(f.StageIDs) > 0 && f.StageIDs[0] != 3 {
					t.Errorf("got stage ids %v, want [3]", f.StageIDs)
				}
			}
		})
	}
}

func TestOOMRiskNeedsGCForCritical(t *testing.T) {
	res := func(major, gc, run int64) *analyze.Result {
		return &analyze.Result{Config: analyze.Config{ExecutorMemoryBytes: 4 * gb, DriverMemoryBytes: gb},
			Executors: []analyze.Executor{{ID: "7", HasPeaks: true, PeakJVMHeapBytes: 4*gb - 100*mb,
				MajorGCCount: major, GCTimeMs: gc, RunTimeMs: run}}}
	}
	for _, c := range []struct {
		name           string
		major, gc, run int64
		want           diagnose.Severity
	}{
		{"major GCs", 2, 0, mn, diagnose.Critical},
		{"GC-bound", 0, mn, 10 * mn, diagnose.Critical},
		{"no GC sign", 0, sec, 10 * mn, diagnose.Warning},
	} {
		fs := diagnose.Run(&diagnose.Pass{Attempt: model.NewAttempt(), Result: res(c.major, c.gc, c.run)},
			[]*diagnose.Rule{diagnose.OOMRisk})
		if got := diagnose.Worst(fs); got != c.want || len(fs) != 1 || fs[0].ExecutorIDs[0] != "7" {
			t.Errorf("%s: got %v%s, want %v on executor 7", c.name, got, dump(fs), c.want)
		}
	}
}

// TestTaskFailuresShutdownFold: a task that failed once and never ran
// again, then a shutdown that cancelled the job (an OutOfMemoryError that
// takes a local-mode driver down): one critical finding, the cancelled job
// folded under it, not a recovered-failure warning beside a shutdown one.
func TestTaskFailuresShutdownFold(t *testing.T) {
	// As analyze decides it (TestOutcomeStopAfterFailure): the failure
	// never recovered before the stop, so the job the stop cancelled is
	// its, and it is the root cause.
	oom := analyze.FailureCause{Error: analyze.TaskError{Class: "java.lang.OutOfMemoryError", Message: "Java heap space"},
		Reason: "ExceptionFailure", Attempts: 1, Tasks: 1, MaxAttempts: 1, StageIDs: []int{0},
		ExecutorIDs: []string{"driver"}, WastedMs: 4900, DelayMs: 4900, FailedJobs: []int{0}}
	res := &analyze.Result{DurationMs: 11900, Failures: analyze.Failures{
		Causes: []analyze.FailureCause{oom},
		Jobs: []analyze.JobFailure{{JobID: 0, Message: "Job 0 cancelled because SparkContext was shut down",
			Kind: analyze.JobCancelledByShutdown, StageIDs: []int{0}, Cause: 0}},
		Outcome: analyze.Outcome{Status: analyze.OutcomeFailed, Job: 0, Cause: 0, FailedJobs: []int{0}}}}
	fs := diagnose.Run(&diagnose.Pass{Attempt: model.NewAttempt(), Result: res}, []*diagnose.Rule{diagnose.TaskFailures})
	if len(fs) != 1 || fs[0].Severity != diagnose.Critical || fs[0].Evidence["exception"] != "java.lang.OutOfMemoryError" {
		t.Fatalf("got %s, want one critical OutOfMemoryError finding", dump(fs))
	}
	if j := fs[0].Evidence["failedJobs"]; fmt.Sprint(j) != "[0]" || !strings.Contains(fs[0].Detail, "stopped with job 0 unfinished") {
		t.Errorf("got failedJobs %v, detail %q; want the cancelled job 0, the stop named", j, fs[0].Detail)
	}
	// The same failure recovered on retry: the shutdown is no consequence.
	oom.Recovered, oom.FailedJobs = 1, nil
	res.Failures.Causes[0] = oom
	res.Failures.Jobs[0].Cause = -1
	res.Failures.Outcome = analyze.Outcome{Status: analyze.OutcomeStopped, Job: 0, Cause: -1, StoppedJobs: []int{0}}
	fs = diagnose.Run(&diagnose.Pass{Attempt: model.NewAttempt(), Result: res}, []*diagnose.Rule{diagnose.TaskFailures})
	if len(fs) != 2 || fs[0].Severity == diagnose.Critical {
		t.Errorf("got %s, want the recovered failure and the shutdown apart", dump(fs))
	}
}

// TestThresholdLevel: higher is worse from Warning up; lower is worse when
// Warning is above Critical (strictly below each level); a zero level is
// not one.
func TestThresholdLevel(t *testing.T) {
	up := diagnose.Threshold{Warning: 0.1, Critical: 0.2}
	down := diagnose.Threshold{Warning: 500, Critical: 200}
	criticalOnly := diagnose.Threshold{Critical: 0.95}
	for _, c := range []struct {
		th   diagnose.Threshold
		v    float64
		want diagnose.Severity
	}{
		{up, 0.0999, diagnose.None}, {up, 0.1, diagnose.Warning}, {up, 0.1999, diagnose.Warning}, {up, 0.2, diagnose.Critical},
		{down, 500, diagnose.None}, {down, 499, diagnose.Warning}, {down, 200, diagnose.Warning}, {down, 199, diagnose.Critical},
		{criticalOnly, 0, diagnose.None}, {criticalOnly, 0.9, diagnose.None}, {criticalOnly, 0.95, diagnose.Critical},
	} {
		if got := c.th.Level(c.v); got != c.want {
			t.Errorf("%+v.Level(%v) = %v, want %v", c.th, c.v, got, c.want)
		}
	}
}
