package analyze

import (
	"container/heap"
	"sort"

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
// of stages (each costing its longest task) and the perfectly parallel
// time (task time ÷ cores); driver time is wall time outside every group.
func criticalPath(groups []*jobGroup, duration int64, cores int) CriticalPath {
	cp := CriticalPath{MaxCores: cores}
	var inJobs, chains, ideal int64
	for _, g := range groups {
		inJobs += g.end - g.start
		cost := map[int]int64{} // stage id → Σ over attempts of its longest task
		var taskTime int64
		for _, s := range g.stages {
			var longest int64
			for _, t := range s.Tasks {
				if t.FinishTime != 0 {
					d := t.FinishTime - t.LaunchTime
					longest = max(longest, d)
					taskTime += d
				}
			}
			cost[s.StageID] += longest
		}
		cp.TaskTimeMs += taskTime
		chain := map[int]int64{}
		var longestChain int64
		for _, s := range g.stages { // parents have lower ids: already done
			if _, done := chain[s.StageID]; done {
				continue
			}
			var before int64
			for _, p := range s.ParentIDs {
				before = max(before, chain[p])
			}
			chain[s.StageID] = before + cost[s.StageID]
			longestChain = max(longestChain, chain[s.StageID])
		}
		chains += longestChain
		if cores > 0 {
			ideal += taskTime / int64(cores)
		}
	}
	cp.DriverMs = max(duration-inJobs, 0)
	cp.CriticalPathMs = cp.DriverMs + chains
	cp.IdealMs = cp.DriverMs + ideal
	return cp
}

// slots is a min-heap of the times at which each core becomes free.
type slots []int64

func (h slots) Len() int           { return len(h) }
func (h slots) Less(i, j int) bool { return h[i] < h[j] }
func (h slots) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slots) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *slots) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// simulate replays the recorded task durations of every job group on
// cores task slots, as Sparklens' what-if does: a stage starts when its
// parents finished, each task on the earliest free slot. It returns the
// estimated wall time including the driver's time outside jobs.
func simulate(groups []*jobGroup, driverMs int64, cores int) int64 {
	if cores <= 0 {
		return 0
	}
	most := 0 // more slots than the largest group's tasks change nothing
	for _, g := range groups {
		n := 0
		for _, s := range g.stages {
			n += len(s.Tasks)
		}
		most = max(most, n)
	}
	cores = max(min(cores, most), 1)
	total := driverMs
	h := make(slots, cores)
	var durs []int64
	for _, g := range groups {
		for i := range h {
			h[i] = 0
		}
		finish := map[int]int64{}
		var groupEnd int64
		for _, s := range g.stages {
			var ready int64
			for _, p := range s.ParentIDs {
				ready = max(ready, finish[p])
			}
			ready = max(ready, finish[s.StageID]) // a re-attempt follows its predecessor
			durs = durs[:0]
			for _, t := range s.Tasks {
				if t.FinishTime != 0 {
					durs = append(durs, t.FinishTime-t.LaunchTime)
				}
			}
			end := ready
			for _, d := range durs {
				start := max(h[0], ready)
				h[0] = start + d
				heap.Fix(&h, 0)
				end = max(end, start+d)
			}
			finish[s.StageID] = end
			groupEnd = max(groupEnd, end)
		}
		total += groupEnd
	}
	return total
}

// whatIf estimates wall time at 0.5×, 1×, 2× and 4× the executors seen.
func whatIf(groups []*jobGroup, cp CriticalPath, execs, coresPerExec int) []WhatIf {
	if execs <= 0 || coresPerExec <= 0 {
		return nil
	}
	var out []WhatIf
	for _, f := range []float64{0.5, 1, 2, 4} {
		// Scale cores, not just executors: half of one executor is half its cores.
		n := max(int(float64(execs)*f+0.5), 1)
		c := max(int(float64(execs*coresPerExec)*f+0.5), 1)
		est := simulate(groups, cp.DriverMs, c)
		w := WhatIf{Factor: f, Executors: n, Cores: c, EstimatedMs: est}
		if busy := est - cp.DriverMs; busy > 0 {
			w.ClusterUtilPct = 100 * float64(cp.TaskTimeMs) / float64(busy*int64(c))
		}
		out = append(out, w)
	}
	return out
}
