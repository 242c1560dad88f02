package diagnose

import (
	"fmt"
	"slices"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var hostSlowdown = Threshold{Metric: "host median task time ÷ median of per-host medians", Warning: 3.16, Critical: 10,
	Gate: "≥ 3 hosts, ≥ 3 tasks on the host; suppressed when the bytes ratio is within 1.5× of the time ratio; cost: the host's task time beyond " +
		"the other hosts' median per task (core time; wall: one task's excess or the core time ÷ the stage's cores, whichever is " +
		"more, at most the stage) ≥ 5 % of the app and ≥ 1 s, " +
		"else info; ≥ 25 % for critical",
	Source: "Dr. Elephant master ExecutorsHeuristic (severe 10^0.5, critical 10); 1.5× ours; the cost gate replaces its " +
		"5 min of host task time, which no short application reaches"}

// StragglerHost reports a host whose tasks run slower than the same stage's tasks elsewhere.
var StragglerHost = &Rule{
	ID:     "straggler-host",
	Title:  "Straggler host",
	Recipe: "troubleshoot/data-skew-diagnosis.md#straggler-host",
	Doc: "One host runs a stage's tasks much slower than the other hosts although its tasks do not read " +
		"proportionally more bytes: a bad disk, a noisy neighbour, a throttled node.",
	Thresholds: []Threshold{hostSlowdown},
	Run:        runStragglerHost,
}

func runStragglerHost(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if len(s.Hosts) < 3 {
			continue
		}
		meds := make([]int64, 0, len(s.Hosts))
		bmeds := make([]int64, 0, len(s.Hosts))
		for _, h := range s.Hosts {
			meds = append(meds, h.MedianTaskMs)
			bmeds = append(bmeds, h.MedianBytes)
		}
		slices.Sort(meds)
		slices.Sort(bmeds)
		med, bmed := meds[len(meds)/2], bmeds[len(bmeds)/2]
		for _, h := range s.Hosts {
			if h.Tasks < 3 {
				continue // one or two slow tasks are the data's (data-skew), not the host's
			}
			ratio := analyze.Ratio(h.MedianTaskMs, med)
			sev := hostSlowdown.Level(ratio)
			if sev == None {
				continue
			}
			bratio := analyze.Ratio(h.MedianBytes, bmed)
			if bmed > 0 && bratio*1.5 >= ratio {
				continue // the host read more: skew, not the host
			}
			execs := executorsOnHost(p, s, h.Host)
			cores := 0
			for _, id := range execs {
				if e := p.Attempt.Executor(id); e != nil {
					cores += e.TotalCores
				}
			}
			// At the other hosts' pace its tasks would have taken med each:
			// the rest is the host's core time. In wall time the stage
			// lost at least one slow task's excess (tasks in one wave wait
			// for it) and, when the cores share the work as they free up,
			// that core time spread over all of them; at most the stage.
			excess := h.TaskTimeMs - int64(h.Tasks)*med
			wall := max(h.MedianTaskMs-med, excess/int64(max(s.CoresAvailable, 1)))
			cost := p.cost(min(wall, s.DurationMs), excess,
				"core: the host's task time beyond the other hosts' median per task; wall: one task's excess or that core time ÷ the stage's cores, whichever is more, at most the stage")
			out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
				ExecutorIDs: execs,
				Detail: fmt.Sprintf("In %s, tasks on %s took a median %s against %s on the other hosts (%.1f×) for %.1f× the bytes.",
					stageRef(s), h.Host, fmtMs(h.MedianTaskMs), fmtMs(med), ratio, bratio),
				Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "host": h.Host,
					"hostMedianMs": h.MedianTaskMs, "otherHostsMedianMs": med, "ratio": round(ratio),
					"bytesRatio": round(bratio), "hostTaskTimeMs": h.TaskTimeMs, "hostTasks": h.Tasks, "hostCores": cores,
					"hosts": len(s.Hosts)}})
		}
	}
	return out
}

// executorsOnHost lists the executors that ran a stage's tasks on host.
func executorsOnHost(p *Pass, s *analyze.Stage, host string) []string {
	st := p.Attempt.Stage(s.StageID, s.AttemptID)
	if st == nil {
		return nil
	}
	var ids []string
	for _, t := range st.Tasks {
		if t.Host == host && !slices.Contains(ids, t.ExecutorID) {
			ids = append(ids, t.ExecutorID)
		}
	}
	return ids
}
