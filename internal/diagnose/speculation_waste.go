package diagnose

import "fmt"

var speculationShare = Threshold{Metric: "run time of attempts that lost ÷ stage task time", Warning: 0.10, Critical: 0.25,
	Gate: "cost: the losing attempts' run time (core time; speculation costs no wall time) ≥ 5 % of the app's core " +
		"time and ≥ 1 min, else info; ≥ 25 % for critical",
	Source: "ours; Spark 4.0 made speculation less aggressive (multiplier 1.5 → 3, quantile 0.75 → 0.9)"}

// SpeculationWaste reports task copies that lost a speculation race.
var SpeculationWaste = &Rule{
	ID:         "speculation-waste",
	Title:      "Wasted speculative tasks",
	Recipe:     "troubleshoot/slow-spark-jobs.md#speculation-waste",
	Doc:        "Attempts killed because another copy of the same task succeeded burned executor time without benefit.",
	Thresholds: []Threshold{speculationShare},
	Run:        runSpeculationWaste,
}

func runSpeculationWaste(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.SpeculationWasteMs == 0 || s.TaskTimeMs == 0 {
			continue
		}
		ratio := float64(s.SpeculationWasteMs) / float64(s.TaskTimeMs)
		sev := speculationShare.Level(ratio)
		if sev == None {
			continue
		}
		cost := p.cost(0, s.SpeculationWasteMs, "core: run time of the attempts that lost the race")
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
			Detail: fmt.Sprintf("%s: %d speculative attempt(s), %d won; attempts that lost the race ran %s (%.0f%% of task time).",
				stageRef(s), s.SpeculativeTasks, s.SpeculativeWins, fmtMs(s.SpeculationWasteMs), 100*ratio),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "wastedMs": s.SpeculationWasteMs,
				"taskTimeMs": s.TaskTimeMs, "ratio": round(ratio), "speculativeAttempts": s.SpeculativeTasks,
				"wins": s.SpeculativeWins, "killedAttempts": s.Killed}})
	}
	return out
}
