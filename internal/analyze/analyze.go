package analyze

import (
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Analyze computes the Result of one replayed attempt. It never fails:
// missing data leaves the corresponding numbers at zero. An attempt without
// an end ends at its last event.
func Analyze(a *model.Attempt) *Result { return AnalyzeAt(a, 0) }

// AnalyzeAt is Analyze for an application still running at now (epoch ms;
// 0 for none): its last state goes on until now, so an application waiting
// for executors, which writes nothing while it waits, shows the wait so far.
func AnalyzeAt(a *model.Attempt, now int64) *Result {
	r := &Result{AppID: a.AppID, AttemptID: a.AttemptID, StartTime: a.StartTime, EndTime: a.EndTime,
		Completed: a.Completed, Config: readConfig(&a.Env), Settings: settings(&a.Env, a.SparkVersion)}
	if r.EndTime == model.NoTime || !a.Completed {
		r.EndTime = LastEventTime(a)
		if !a.Completed && now > r.EndTime {
			r.EndTime, r.Running = now, true
		}
	}
	if r.StartTime != model.NoTime && r.EndTime > r.StartTime {
		r.DurationMs = model.Span(r.StartTime, r.EndTime)
	}
	// The failures read only the model: worked out beside the rest, on
	// the second core (an eighth of Analyze on a big log).
	failed := make(chan Failures, 1)
	go func() { failed <- failures(a, r.Running) }()
	vals := accumulatorValues(a)
	r.SQL = sqlStats(a, vals)
	r.Streaming = streaming(a)
	writeSQL := map[int64]bool{}
	for _, x := range r.SQL {
		writeSQL[x.ID] = x.IsWrite
	}
	stages := append([]*model.StageAttempt(nil), a.Stages...)
	sort.Slice(stages, func(i, j int) bool {
		if stages[i].StageID != stages[j].StageID {
			return stages[i].StageID < stages[j].StageID
		}
		return stages[i].AttemptID < stages[j].AttemptID
	})
	acc := executorAccs(a.Executors, stages)
	r.Stages = allStageStats(stages, findColdTasks(a))
	for i, s := range stages {
		st := &r.Stages[i]
		for _, id := range s.JobIDs {
			if j := a.Job(id); j != nil && j.SQLExecutionID >= 0 {
				st.SQLExecutionID = j.SQLExecutionID
			}
		}
	}
	markWrites(r.Stages, stages, writeSQL)
	joinPairs(r.SQL, r.Stages)
	r.Plugins = plugins(a, r.SQL, r.Stages)
	r.Executors = make([]Executor, 0, len(a.Executors))
	for _, e := range a.Executors {
		r.Executors = append(r.Executors, executorStats(e, acc[e.ID], r.EndTime))
	}
	var maxExecs, maxCores int
	if r.DurationMs > 0 {
		// With dynamic allocation and no initial executors, Spark asks for
		// executors only once tasks are pending: before that the driver
		// is not waiting for them.
		fromStart := !r.Config.DynamicAllocation || r.Config.InitialExecutors > 0
		r.Timeline, r.Phases, maxExecs, maxCores = timeline(a, r.Stages, r.SQL, r.StartTime, r.EndTime, fromStart)
	}
	if maxCores == 0 {
		maxCores = maxConcurrentTasks(a)
		maxExecs = min(maxExecs, 1)
	}
	stageCores(a, r.Stages, r.EndTime, newBusyCurve(a))
	groups := jobGroups(a, r.EndTime)
	cs := coldStart(groups)
	r.CriticalPath = criticalPath(groups, r.DurationMs, maxCores, cs)
	r.CriticalPath.MaxExecutors = maxExecs
	perExec := r.Config.ExecutorCores
	if maxExecs > 0 && (perExec <= 0 || perExec*maxExecs > maxCores) {
		perExec = max(maxCores/maxExecs, 1)
	}
	if maxExecs == 0 {
		maxExecs, perExec = 1, maxCores
	}
	local := r.Config.Master == "local" || strings.HasPrefix(r.Config.Master, "local[")
	r.WhatIf = whatIf(groups, r.CriticalPath, maxExecs, perExec, cs, local, r.DurationMs)
	r.Jobs = jobs(a, r.Stages)
	r.Failures = <-failed
	r.Headline = headline(a, r)
	r.Memory = memorySizing(r)
	return r
}

// allStageStats is stageStats of each stage, in order, the stages shared
// among GOMAXPROCS goroutines: each reads only its stage and cold, and
// they were a quarter of Analyze on one core on a big log.
func allStageStats(stages []*model.StageAttempt, cold coldTasks) []Stage {
	out := make([]Stage, len(stages))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(stages)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(stages); i = int(next.Add(1) - 1) {
				out[i] = stageStats(stages[i], cold)
			}
		})
	}
	wg.Wait()
	return out
}

// LastEventTime is the latest time the log shows: app end, or the last event
// time the replay saw.
func LastEventTime(a *model.Attempt) int64 {
	t := max(a.EndTime, a.StartTime)
	for _, s := range a.Stages {
		t = max(t, s.CompletionTime, s.SubmissionTime)
		if n := len(s.Tasks); n > 0 {
			for _, k := range s.Tasks {
				t = max(t, k.FinishTime, k.LaunchTime)
			}
		}
	}
	for _, j := range a.Jobs {
		t = max(t, j.CompletionTime, j.SubmissionTime)
	}
	work := t
	for _, e := range a.Executors {
		// An executor that ran nothing and came long after the last work
		// is not this run's: Spark's driver stamps events in the order it
		// writes them, and logs stitched from several runs (public test
		// logs do it) put such an executor years after the application,
		// which then "ran" for 22,326 hours.
		if e.TotalTasks == 0 && e.AddTime > work+strayExecutorMs {
			continue
		}
		t = max(t, e.AddTime, e.RemoveTime)
	}
	return t
}

// strayExecutorMs is how long after the last work an idle executor's
// arrival still extends an unfinished application: a day, far beyond
// the minute dynamic allocation keeps an idle executor.
const strayExecutorMs = 24 * 60 * 60 * 1000

// maxConcurrentTasks is the most tasks running at once (local mode, where
// no executor reports cores).
func maxConcurrentTasks(a *model.Attempt) int {
	type ev struct {
		t int64
		d int
	}
	var evs []ev
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime != 0 {
				evs = append(evs, ev{t.LaunchTime, 1}, ev{t.FinishTime, -1})
			}
		}
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].d < evs[j].d
	})
	cur, best := 0, 0
	for _, e := range evs {
		cur += e.d
		best = max(best, cur)
	}
	return best
}

// stageCores sets each stage's available cores (Σ cores of executors alive
// at any time while it ran) and its PRatio.
func stageCores(a *model.Attempt, stages []Stage, end int64, busy *busyCurve) {
	capacity := capacityExecutors(a)
	for i := range stages {
		s := &stages[i]
		if s.SubmissionTime == model.NoTime {
			continue
		}
		stop := s.CompletionTime
		if stop == model.NoTime {
			stop = end
		}
		cores := 0
		for _, e := range capacity {
			gone := e.RemoveTime
			if gone == model.NoTime {
				gone = end
			}
			if e.AddTime <= stop && gone >= s.SubmissionTime {
				cores += e.TotalCores
			}
		}
		s.CoresAvailable = cores
		if cores > 0 {
			s.PRatio = float64(s.NumTasks) / float64(cores)
			if d := stop - s.SubmissionTime; d > 0 {
				s.ClusterBusy = float64(busy.between(s.SubmissionTime, stop)) / float64(int64(cores)*d)
			}
		}
	}
}

func jobs(a *model.Attempt, stages []Stage) []Job {
	result := map[int]int64{}
	for _, s := range stages {
		if s.ShuffleWriteBytes > 0 || s.ShuffleWriteRecords > 0 {
			continue // a map stage returns map statuses, not results
		}
		for _, id := range s.JobIDs {
			result[id] += s.ResultBytes
		}
	}
	out := make([]Job, 0, len(a.Jobs))
	for _, j := range a.Jobs {
		out = append(out, Job{ID: j.ID, SubmissionTime: j.SubmissionTime, CompletionTime: j.CompletionTime,
			Status: j.Status, StageIDs: j.StageIDs, SQLExecutionID: j.SQLExecutionID, ResultBytes: result[j.ID]})
	}
	return out
}
