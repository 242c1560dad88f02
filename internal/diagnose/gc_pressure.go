package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// GCPressure reports stages, executors or the whole app spending too much task time in GC.
var GCPressure = &Rule{
	ID:     "gc-pressure",
	Title:  "Garbage-collection pressure",
	Recipe: "troubleshoot/gc-pressure.md",
	Doc:    "JVM GC time is a large share of executor run time (per stage, and per application with the worst executors).",
	Thresholds: []Threshold{{Metric: "JVM GC Time ÷ Executor Run Time", Warning: 0.10, Critical: 0.20,
		Gate:   "≥ 5 min of task run time in the scope",
		Source: "Dr. Elephant master ExecutorGcHeuristic (0.1, 0.2); Spark UI executorspage.js GCTimePercent 0.1"}},
	Run: runGCPressure,
}

func runGCPressure(p *Pass) []Finding {
	var out []Finding
	r := p.Result
	var gc, run int64
	for i := range r.Stages {
		s := &r.Stages[i]
		gc += s.GCTimeMs
		run += s.RunTimeTotalMs
		if s.RunTimeTotalMs < 5*minute {
			continue
		}
		ratio := analyze.Ratio(s.GCTimeMs, s.RunTimeTotalMs)
		sev := level(ratio, 0.10, 0.20)
		if sev == None {
			continue
		}
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID},
			Detail: fmt.Sprintf("%s spent %s of %s task run time in GC (%.0f%%).", stageRef(s),
				fmtMs(s.GCTimeMs), fmtMs(s.RunTimeTotalMs), 100*ratio),
			Evidence: map[string]any{"scope": "stage", "stageId": s.StageID, "attemptId": s.AttemptID,
				"gcTimeMs": s.GCTimeMs, "runTimeMs": s.RunTimeTotalMs, "gcRatio": round(ratio)}})
	}
	if run < 5*minute {
		return out
	}
	ratio := analyze.Ratio(gc, run)
	sev := level(ratio, 0.10, 0.20)
	if sev == None {
		return out
	}
	var execs []string
	var major int64
	for _, e := range r.Executors {
		major += e.MajorGCCount
		if e.RunTimeMs > 0 && analyze.Ratio(e.GCTimeMs, e.RunTimeMs) >= 0.10 {
			execs = append(execs, e.ID)
		}
	}
	return append(out, Finding{Severity: sev, ExecutorIDs: execs,
		Detail: fmt.Sprintf("Tasks spent %s of %s run time in GC (%.0f%%) across the application.",
			fmtMs(gc), fmtMs(run), 100*ratio),
		Evidence: map[string]any{"scope": "app", "gcTimeMs": gc, "runTimeMs": run, "gcRatio": round(ratio),
			"majorGcCount": major}})
}
