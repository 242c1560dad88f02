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
	marks, firstExec := executorMarks(a, clip, end)
	marks = append(marks, stageMarks(stages, sql, clip, end)...)
	sort.Slice(marks, func(i, j int) bool { return marks[i].t < marks[j].t })

	var b phaseBuilder
	if firstExec == model.NoTime {
		b.ph.FirstExecutorDelayMs = end - start
	} else {
		b.ph.FirstExecutorDelayMs = max(clip(firstExec)-start, 0)
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
			b.add(prev, t, p)
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
	return b.ivs, b.ph, maxExecs, maxCores
}

// executorMarks are the capacity executors' arrivals and departures (a
// running one departs at end), and the first arrival.
func executorMarks(a *model.Attempt, clip func(int64) int64, end int64) (marks []mark, firstExec int64) {
	firstExec = model.NoTime
	for _, e := range capacityExecutors(a) {
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
	return marks, firstExec
}

// stageMarks are the stages' submissions and completions (writing ones
// counted apart), and each writing query's commit tail: from its write
// stages' last completion to the query's end.
func stageMarks(stages []Stage, sql []SQLExecution, clip func(int64) int64, end int64) []mark {
	var marks []mark
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
	return marks
}

// phaseBuilder sums the phases' time and joins adjacent intervals of one
// phase.
type phaseBuilder struct {
	ph  Phases
	ivs []Interval
}

func (b *phaseBuilder) add(from, to int64, p Phase) {
	if to <= from {
		return
	}
	d := model.Span(from, to)
	switch p {
	case PhaseResourceWait:
		b.ph.ResourceWaitMs = model.SatAdd(b.ph.ResourceWaitMs, d)
	case PhaseOutputWrite:
		b.ph.OutputWriteMs = model.SatAdd(b.ph.OutputWriteMs, d)
	case PhaseCompute:
		b.ph.ComputeMs = model.SatAdd(b.ph.ComputeMs, d)
	default:
		b.ph.DriverOnlyMs = model.SatAdd(b.ph.DriverOnlyMs, d)
	}
	if n := len(b.ivs); n > 0 && b.ivs[n-1].Phase == p && b.ivs[n-1].End == from {
		b.ivs[n-1].End = to
		return
	}
	b.ivs = append(b.ivs, Interval{Start: from, End: to, Phase: p})
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
