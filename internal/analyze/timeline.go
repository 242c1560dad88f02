package analyze

import (
	"sort"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// mark is a change, at one instant, in how many executors, cores, running
// stages, running write stages and write-commit tails there are.
type mark struct {
	t                                  int64
	execs, cores, stages, writes, tail int
}

// timeline splits [start, end] into phases by sweeping over executor
// lifetimes and stage spans, and measures peak executor concurrency.
// Precedence at each instant: resource wait (before the first executor
// when fromStart, or a stage running with no executor) > output write >
// compute > driver only.
func timeline(a *model.Attempt, stages []Stage, sql []SQLExecution, start, end int64, fromStart bool) ([]Interval, Phases, int, int) {
	clip := func(t int64) int64 { return min(max(t, start), end) }
	var marks []mark
	firstExec := int64(model.NoTime)
	capacity := capacityExecutors(a)
	for _, e := range capacity {
		if e.AddTime == model.NoTime {
			continue
		}
		stop := e.RemoveTime
		if stop == model.NoTime {
			stop = end
		}
		if firstExec == model.NoTime || e.AddTime < firstExec {
			firstExec = e.AddTime
		}
		marks = append(marks, mark{t: clip(e.AddTime), execs: 1, cores: e.TotalCores},
			mark{t: clip(stop), execs: -1, cores: -e.TotalCores})
	}
	writeTailEnd := map[int64]int64{} // sql id → end of its commit tail
	lastFinish := map[int64]int64{}   // sql id → last task finish of its write stages
	for i := range stages {
		s := &stages[i]
		if s.SubmissionTime == model.NoTime {
			continue
		}
		stop := s.CompletionTime
		if stop == model.NoTime {
			stop = end
		}
		w := 0
		if s.IsWrite {
			w = 1
		}
		marks = append(marks, mark{t: clip(s.SubmissionTime), stages: 1, writes: w},
			mark{t: clip(stop), stages: -1, writes: -w})
		if s.IsWrite && s.SQLExecutionID >= 0 {
			lastFinish[s.SQLExecutionID] = max(lastFinish[s.SQLExecutionID], stop)
		}
	}
	for _, x := range sql {
		if x.IsWrite && x.EndTime != model.NoTime {
			writeTailEnd[x.ID] = x.EndTime
		}
	}
	for id, from := range lastFinish {
		if to, ok := writeTailEnd[id]; ok && to > from {
			marks = append(marks, mark{t: clip(from), tail: 1}, mark{t: clip(to), tail: -1})
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].t < marks[j].t })

	var ph Phases
	if firstExec == model.NoTime {
		ph.FirstExecutorDelayMs = end - start
	} else {
		ph.FirstExecutorDelayMs = max(clip(firstExec)-start, 0)
	}
	var ivs []Interval
	add := func(from, to int64, p Phase) {
		if to <= from {
			return
		}
		d := model.Span(from, to)
		switch p {
		case PhaseResourceWait:
			ph.ResourceWaitMs = model.SatAdd(ph.ResourceWaitMs, d)
		case PhaseOutputWrite:
			ph.OutputWriteMs = model.SatAdd(ph.OutputWriteMs, d)
		case PhaseCompute:
			ph.ComputeMs = model.SatAdd(ph.ComputeMs, d)
		default:
			ph.DriverOnlyMs = model.SatAdd(ph.DriverOnlyMs, d)
		}
		if n := len(ivs); n > 0 && ivs[n-1].Phase == p && ivs[n-1].End == from {
			ivs[n-1].End = to
			return
		}
		ivs = append(ivs, Interval{Start: from, End: to, Phase: p})
	}
	var cur mark
	maxExecs, maxCores := 0, 0
	prev := start
	for i := 0; i <= len(marks); i++ {
		t := end
		if i < len(marks) {
			t = marks[i].t
		}
		if t > prev {
			p := PhaseDriverOnly
			switch {
			case fromStart && (firstExec == model.NoTime || prev < firstExec), cur.stages > 0 && cur.execs <= 0:
				p = PhaseResourceWait
			case cur.writes > 0 || cur.tail > 0:
				p = PhaseOutputWrite
			case cur.stages > 0:
				p = PhaseCompute
			}
			add(prev, t, p)
			prev = t
		}
		if i == len(marks) {
			break
		}
		m := marks[i]
		cur.execs += m.execs
		cur.cores += m.cores
		cur.stages += m.stages
		cur.writes += m.writes
		cur.tail += m.tail
		maxExecs, maxCores = max(maxExecs, cur.execs), max(maxCores, cur.cores)
	}
	return ivs, ph, maxExecs, maxCores
}

// capacityExecutors are the executors that run tasks: every executor but
// the driver, or only the driver in local mode (or when the log does not
// say the master). On a cluster the driver runs no task: an application
// that never got an executor waited for resources all along, however
// long, rather than computing on its driver.
func capacityExecutors(a *model.Attempt) []*model.Executor {
	var out []*model.Executor
	var driver *model.Executor
	for _, e := range a.Executors {
		if e.ID == "driver" {
			driver = e
			continue
		}
		out = append(out, e)
	}
	// Tasks run on the driver only in local mode, where it is the one
	// executor from the start: counted even beside executors the log
	// lists, as logs stitched from several runs do (executors added after
	// the application's end left it "waiting for executors" throughout
	// while its tasks ran).
	if driver != nil && (driver.TotalTasks > 0 || len(out) == 0 && localMaster(a)) {
		out = append(out, driver)
	}
	return out
}

// localMaster says whether the application ran in local mode (its tasks on
// the driver): spark.master local, local[N], local-cluster[…], or unknown.
func localMaster(a *model.Attempt) bool {
	for _, p := range a.Env.SparkProperties {
		if p[0] == "spark.master" {
			return p[1] == "" || strings.HasPrefix(p[1], "local")
		}
	}
	return true
}
