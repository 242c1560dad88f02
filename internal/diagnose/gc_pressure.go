package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var gcShare = Threshold{Metric: "JVM GC time ÷ executor run time, per task capped at its run time", Warning: 0.10, Critical: 0.20,
	Gate: "cost: the GC time (core) and its share of the stages' wall time ≥ 5 % of the app and ≥ 1 s of wall " +
		"(or ≥ 1 min of core) time, else info; ≥ 25 % for critical",
	Source: "Dr. Elephant master ExecutorGcHeuristic (0.1, 0.2); Spark UI executorspage.js GCTimePercent 0.1; the cost " +
		"gate ours (it replaces a floor of 5 min of task run time)"}

// GCPressure reports stages, executors or the whole app spending too much task time in GC.
var GCPressure = &Rule{
	ID:         "gc-pressure",
	Title:      "Garbage-collection pressure",
	Recipe:     "troubleshoot/gc-pressure.md",
	Doc:        "JVM GC time is a large share of executor run time (per stage, and per application with the worst executors).",
	Thresholds: []Threshold{gcShare},
	Run:        runGCPressure,
}

func runGCPressure(p *Pass) []Finding {
	var out []Finding
	r := p.Result
	var gc, run, wall int64
	for i := range r.Stages {
		s := &r.Stages[i]
		ratio := analyze.Ratio(s.GCShareMs, s.RunTimeTotalMs)
		// In wall time, GC took its share of the stage's duration — never
		// more than the GC time itself (one task collecting at a time).
		sw := min(int64(ratio*float64(max(s.DurationMs, 0))), s.GCShareMs)
		gc += s.GCShareMs
		run += s.RunTimeTotalMs
		wall += sw
		sev := gcShare.Level(ratio)
		if sev == None {
			continue
		}
		cost := p.cost(sw, s.GCShareMs, "core: GC time of the stage's tasks; wall: that share of the stage's duration")
		if !cost.Matters() {
			continue // the app-wide finding speaks for small stages
		}
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
			Detail: fmt.Sprintf("%s spent %s of %s executor run time in GC (%.0f%%).", stageRef(s),
				fmtMs(s.GCShareMs), fmtMs(s.RunTimeTotalMs), 100*ratio) + photonNote(p, "GC times"),
			Evidence: map[string]any{"scope": "stage", "stageId": s.StageID, "attemptId": s.AttemptID,
				"gcTimeMs": s.GCShareMs, "runTimeMs": s.RunTimeTotalMs, "gcRatio": round(ratio)}})
	}
	ratio := analyze.Ratio(gc, run)
	sev := gcShare.Level(ratio)
	if sev == None {
		return out
	}
	cost := p.cost(wall, gc, "core: GC time of every task; wall: each stage's GC share of its duration")
	var execs []string
	var major int64
	for _, e := range r.Executors {
		major += e.MajorGCCount
		if e.RunTimeMs > 0 && analyze.Ratio(e.GCShareMs, e.RunTimeMs) >= 0.10 {
			execs = append(execs, e.ID)
		}
	}
	return append(out, Finding{Severity: gate(sev, cost), ExecutorIDs: execs, Cost: cost,
		Detail: fmt.Sprintf("Tasks spent %s of %s executor run time in GC (%.0f%%) across the application.",
			fmtMs(gc), fmtMs(run), 100*ratio) + photonNote(p, "GC times"),
		Evidence: map[string]any{"scope": "app", "gcTimeMs": gc, "runTimeMs": run, "gcRatio": round(ratio),
			"majorGcCount": major}})
}
