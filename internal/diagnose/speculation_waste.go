package diagnose

import "fmt"

// SpeculationWaste reports task copies that lost a speculation race.
var SpeculationWaste = &Rule{
	ID:     "speculation-waste",
	Title:  "Wasted speculative tasks",
	Recipe: "troubleshoot/slow-spark-jobs.md#speculation-waste",
	Doc:    "Attempts killed because another copy of the same task succeeded burned executor time without benefit.",
	Thresholds: []Threshold{{Metric: "run time of attempts that lost ÷ stage task time", Warning: 0.10, Critical: 0.25,
		Gate:   "stage ≥ 2 min (shorter stages: info)",
		Source: "ours; Spark 4.0 made speculation less aggressive (multiplier 1.5 → 3, quantile 0.75 → 0.9)"}},
	Run: runSpeculationWaste,
}

func runSpeculationWaste(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.SpeculationWasteMs == 0 || s.TaskTimeMs == 0 {
			continue
		}
		ratio := float64(s.SpeculationWasteMs) / float64(s.TaskTimeMs)
		sev := level(ratio, 0.10, 0.25)
		if sev != None && s.DurationMs < 2*minute {
			sev = Info
		}
		if sev == None {
			continue
		}
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID},
			Detail: fmt.Sprintf("%s: %d speculative attempt(s), %d won; attempts that lost the race ran %s (%.0f%% of task time).",
				stageRef(s), s.SpeculativeTasks, s.SpeculativeWins, fmtMs(s.SpeculationWasteMs), 100*ratio),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "wastedMs": s.SpeculationWasteMs,
				"taskTimeMs": s.TaskTimeMs, "ratio": round(ratio), "speculativeAttempts": s.SpeculativeTasks,
				"wins": s.SpeculativeWins, "killedAttempts": s.Killed}})
	}
	return out
}
