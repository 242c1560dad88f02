package analyze

import (
	"slices"
	"sort"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/model"
)

// jobGroup is a set of jobs whose spans overlap: they ran concurrently,
// so they are simulated together.
type jobGroup struct {
	start, end int64
	stages     []*model.StageAttempt // by stage id, then attempt
	jobs       []*model.Job
}

// jobGroups merges overlapping job spans, in submission order.
func jobGroups(a *model.Attempt, end int64) []*jobGroup {
	jobs := make([]*model.Job, 0, len(a.Jobs))
	for _, j := range a.Jobs {
		if j.SubmissionTime > 0 {
			jobs = append(jobs, j)
		}
	}
	sort.SliceStable(jobs, func(i, k int) bool { return jobs[i].SubmissionTime < jobs[k].SubmissionTime })
	var groups []*jobGroup
	for _, j := range jobs {
		stop := j.CompletionTime
		if stop <= 0 {
			stop = end
		}
		if n := len(groups); n > 0 && j.SubmissionTime < groups[n-1].end {
			g := groups[n-1]
			g.end = max(g.end, stop)
			g.jobs = append(g.jobs, j)
			continue
		}
		groups = append(groups, &jobGroup{start: j.SubmissionTime, end: stop, jobs: []*model.Job{j}})
	}
	seen := map[*model.StageAttempt]bool{}
	for _, g := range groups {
		for _, j := range g.jobs {
			for _, id := range j.StageIDs {
				for _, s := range a.StageAttempts(id) {
					if !seen[s] && len(s.Tasks) > 0 {
						seen[s] = true
						g.stages = append(g.stages, s)
					}
				}
			}
		}
		sort.Slice(g.stages, func(i, k int) bool {
			if g.stages[i].StageID != g.stages[k].StageID {
				return g.stages[i].StageID < g.stages[k].StageID
			}
			return g.stages[i].AttemptID < g.stages[k].AttemptID
		})
	}
	return groups
}

// criticalPath computes Sparklens' bounds: per job group the longest chain
// of stages (each costing its longest task, an executor's cold start
// taken out of its first task: a lower bound) and the perfectly parallel
// time (task time ÷ cores); driver time is wall time outside every group.
func criticalPath(groups []*jobGroup, duration int64, cores int, cs coldStarts) CriticalPath {
	cp := CriticalPath{MaxCores: cores, ColdStartMs: cs.mean}
	var inJobs, chains, ideal int64
	for _, g := range groups {
		inJobs = model.SatAdd(inJobs, model.Span(g.start, g.end))
		cost := map[int]int64{} // stage id → Σ over attempts of its longest task
		var taskTime int64
		for _, s := range g.stages {
			var longest int64
			for _, t := range s.Tasks {
				if t.FinishTime != 0 {
					d := model.Span(t.LaunchTime, t.FinishTime)
					longest = max(longest, d-cs.excess[t])
					taskTime = model.SatAdd(taskTime, d)
				}
			}
			cost[s.StageID] = model.SatAdd(cost[s.StageID], longest)
		}
		cp.TaskTimeMs = model.SatAdd(cp.TaskTimeMs, taskTime)
		longestChain, path := longestChain(g.stages, cost)
		chains = model.SatAdd(chains, longestChain)
		cp.StageIDs = append(cp.StageIDs, path...)
		if cores > 0 {
			ideal = model.SatAdd(ideal, taskTime/int64(cores))
		}
	}
	cp.DriverMs = model.Span(inJobs, duration)
	cp.CriticalPathMs = cp.DriverMs + chains
	cp.IdealMs = cp.DriverMs + ideal
	return cp
}

// longestChain is the costliest chain of stages through their parents
// (each stage's cost added once, over its attempts) and its stage ids
// from the first to run to the last; among equal chains the one through
// the lower ids.
func longestChain(stages []*model.StageAttempt, cost map[int]int64) (int64, []int) {
	chain := map[int]int64{}
	prev := map[int]int{} // stage id → the parent its chain runs through
	end, longest := -1, int64(0)
	for _, s := range stages { // parents have lower ids: already done
		if _, done := chain[s.StageID]; done {
			continue
		}
		var before int64
		from := -1
		for _, p := range s.ParentIDs {
			if c, ok := chain[p]; ok && (from < 0 || c > before || c == before && p < from) {
				before, from = c, p
			}
		}
		if from >= 0 {
			prev[s.StageID] = from
		}
		chain[s.StageID] = model.SatAdd(before, cost[s.StageID])
		if end < 0 || chain[s.StageID] > longest {
			end, longest = s.StageID, chain[s.StageID]
		}
	}
	var path []int
	for id, ok := end, end >= 0; ok; id, ok = prev[id] {
		path = append(path, id)
	}
	slices.Reverse(path)
	return longest, path
}

// coldStarts is what an executor's first task paid beyond its stage's
// median task — the JVM warming up, the Python worker daemon starting —
// per recorded first task, and its mean, which each simulated executor
// pays once, on its first task. Without it, a what-if for fewer
// executors counts the recorded start-ups of the others, and one for
// more executors counts none of theirs (measured: ±12 % on a real
// cluster; see TestWhatIfAgainstReality).
type coldStarts struct {
	mean   int64
	excess map[*model.Task]int64
}

func coldStart(groups []*jobGroup) coldStarts {
	type first struct {
		t *model.Task
		s *model.StageAttempt
	}
	firsts := map[string]first{}
	for _, g := range groups {
		for _, s := range g.stages {
			for _, t := range s.Tasks {
				if t.FinishTime == 0 {
					continue
				}
				if f, ok := firsts[t.ExecutorID]; !ok || t.LaunchTime < f.t.LaunchTime {
					firsts[t.ExecutorID] = first{t, s}
				}
			}
		}
	}
	excess := map[*model.Task]int64{}
	var sum, mean int64
	for _, f := range firsts {
		var durs []int64
		for _, t := range f.s.Tasks {
			if t.FinishTime != 0 {
				durs = append(durs, t.FinishTime-t.LaunchTime)
			}
		}
		if len(durs) < 3 { // no typical task to compare with
			continue
		}
		slices.Sort(durs)
		x := max(f.t.FinishTime-f.t.LaunchTime-durs[len(durs)/2], 0)
		excess[f.t] = x
		sum += x
	}
	if len(excess) > 0 {
		mean = sum / int64(len(excess))
	}
	return coldStarts{mean: mean, excess: excess}
}

// whatIf estimates wall time at 0.5×, 1×, 2× and 4× the cores seen,
// keyed by what it simulates: executors × cores each (in local mode one
// JVM, local[N], whose cores scale). The 1× row is the recorded run
// (Actual, its wall time the application's); the others add what the
// simulation changes from its 1× replay to that wall time, so that what
// the replay leaves out (scheduling gaps, executors arriving) stays as it
// was instead of vanishing from every row but the real one. Rows that
// simulate the same executors and cores (half of one core is one core)
// are one row, the actual one kept.
func whatIf(groups []*jobGroup, cp CriticalPath, execs, coresPerExec int, cs coldStarts, local bool, actualMs int64) []WhatIf {
	if execs <= 0 || coresPerExec <= 0 {
		return nil
	}
	sim := newSimulation(groups, cs)
	base := sim.run(cp.DriverMs, execs*coresPerExec, coresPerExec)
	var out []WhatIf
	for _, f := range []float64{0.5, 1, 2, 4} {
		// Whole executors of the recorded size; half of one executor is
		// half its cores, and local mode is one JVM whose cores scale.
		n, per := max(int(float64(execs)*f+0.5), 1), coresPerExec
		if local || execs == 1 && f < 1 {
			per = max(int(float64(coresPerExec)*f+0.5), 1)
		}
		if local {
			n = 1
		}
		c := n * per
		ms := base // the recorded executors and cores: the base run again
		if c != execs*coresPerExec || per != coresPerExec {
			ms = sim.run(cp.DriverMs, c, per)
		}
		w := WhatIf{Factor: f, Executors: n, Cores: c, Local: local, SimulatedMs: ms,
			EstimatedMs: max(actualMs+ms-base, 0), Actual: f == 1}
		if f == 1 {
			w.EstimatedMs = actualMs
		}
		if busy := ms - cp.DriverMs; busy > 0 {
			w.ClusterUtilPct = 100 * float64(cp.TaskTimeMs) / float64(busy*int64(c))
		}
		if i := slices.IndexFunc(out, func(o WhatIf) bool { return o.Executors == n && o.Cores == c }); i >= 0 {
			if w.Actual {
				out[i] = w
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

// Label names what a what-if row simulates: "2 executors × 4 cores",
// "1 executor × 3 cores", "local[6]".
func (w WhatIf) Label() string {
	if w.Local {
		return "local[" + strconv.Itoa(w.Cores) + "]"
	}
	per := w.Cores / max(w.Executors, 1)
	unit := " executors × "
	if w.Executors == 1 {
		unit = " executor × "
	}
	cores := " cores"
	if per == 1 {
		cores = " core"
	}
	return strconv.Itoa(w.Executors) + unit + strconv.Itoa(per) + cores
}
