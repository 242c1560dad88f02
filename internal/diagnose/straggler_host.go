package diagnose

import (
	"fmt"
	"slices"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// StragglerHost reports a host whose tasks run slower than the same stage's tasks elsewhere.
var StragglerHost = &Rule{
	ID:     "straggler-host",
	Title:  "Straggler host",
	Recipe: "troubleshoot/data-skew-diagnosis.md#straggler-host",
	Doc: "One host runs a stage's tasks much slower than the other hosts although its tasks do not read " +
		"proportionally more bytes: a bad disk, a noisy neighbour, a throttled node.",
	Thresholds: []Threshold{{Metric: "host median task time ÷ median of per-host medians", Warning: 3.16, Critical: 10,
		Gate:   "host task time in the stage ≥ 5 min, ≥ 3 hosts; suppressed when the bytes ratio is within 1.5× of the time ratio",
		Source: "Dr. Elephant master ExecutorsHeuristic (severe 10^0.5, critical 10, 5 min); 1.5× ours"}},
	Run: runStragglerHost,
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
			if h.TaskTimeMs < 5*minute {
				continue
			}
			ratio := analyze.Ratio(h.MedianTaskMs, med)
			sev := level(ratio, 3.16, 10)
			if sev == None {
				continue
			}
			bratio := analyze.Ratio(h.MedianBytes, bmed)
			if bmed > 0 && bratio*1.5 >= ratio {
				continue // the host read more: skew, not the host
			}
			out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID},
				ExecutorIDs: executorsOnHost(p, s, h.Host),
				Detail: fmt.Sprintf("In %s, tasks on %s took a median %s against %s on the other hosts (%.1f×) for %.1f× the bytes.",
					stageRef(s), h.Host, fmtMs(h.MedianTaskMs), fmtMs(med), ratio, bratio),
				Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "host": h.Host,
					"hostMedianMs": h.MedianTaskMs, "otherHostsMedianMs": med, "ratio": round(ratio),
					"bytesRatio": round(bratio), "hostTaskTimeMs": h.TaskTimeMs, "hosts": len(s.Hosts)}})
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
