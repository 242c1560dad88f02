package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// ShuffleBottleneck reports stages waiting on shuffle fetches or writes, and shuffle fetch failures.
var ShuffleBottleneck = &Rule{
	ID:     "shuffle-bottleneck",
	Title:  "Shuffle bottleneck",
	Recipe: "troubleshoot/shuffle-bottleneck.md",
	Doc:    "Tasks wait on shuffle fetches or spend their time writing shuffle files, or shuffle fetches fail.",
	Thresholds: []Threshold{{Metric: "Fetch Wait Time ÷ run time; Shuffle Write Time ÷ run time", Warning: 0.20,
		Critical: 0.40, Gate: "stage ≥ 2 min; ≥ 1 FetchFailed is a warning, a stage re-attempted after FetchFailed critical",
		Source: "ours (Sparklens defines ReadFetch% and ShuffleWrite% without thresholds)"}},
	Run: runShuffleBottleneck,
}

func runShuffleBottleneck(p *Pass) []Finding {
	r := p.Result
	// Fetch failures from an executor that was lost are the loss's
	// consequence: executor-lost reports them, not this rule.
	fromLoss := map[int]int{}
	for _, c := range r.Failures.Causes {
		if c.Reason == "FetchFailed" && c.LostExecutor != "" {
			for _, id := range c.StageIDs {
				fromLoss[id] += c.Attempts
			}
		}
	}
	var out []Finding
	for i := range r.Stages {
		s := &r.Stages[i]
		fetchFailures := max(s.FetchFailures-fromLoss[s.StageID], 0)
		fetch := analyze.Ratio(s.FetchWaitMs, s.RunTimeTotalMs)
		write := analyze.Ratio(s.ShuffleWriteTimeNs/1e6, s.RunTimeTotalMs)
		sev := None
		if s.DurationMs >= 2*minute {
			sev = level(max(fetch, write), 0.20, 0.40)
		}
		reattempted := false
		if fetchFailures > 0 {
			sev = max(sev, Warning)
			for j := range r.Stages {
				if r.Stages[j].StageID == s.StageID && r.Stages[j].AttemptID > s.AttemptID {
					reattempted = true
				}
			}
			if reattempted {
				sev = Critical
			}
		}
		if sev == None {
			continue
		}
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID},
			Detail: fmt.Sprintf("%s waited %s on shuffle fetches (%.0f%% of run time), wrote shuffle for %.0f%%, and had %d fetch failure(s).",
				stageRef(s), fmtMs(s.FetchWaitMs), 100*fetch, 100*write, fetchFailures),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "fetchWaitMs": s.FetchWaitMs,
				"shuffleWriteTimeMs": s.ShuffleWriteTimeNs / 1e6, "runTimeMs": s.RunTimeTotalMs,
				"fetchWaitRatio": round(fetch), "shuffleWriteRatio": round(write), "fetchFailures": fetchFailures,
				"fetchFailuresFromLostExecutors": fromLoss[s.StageID],
				"reattempted":                    reattempted, "shuffleReadBytes": s.ShuffleReadBytes, "shuffleWriteBytes": s.ShuffleWriteBytes}})
	}
	return out
}
