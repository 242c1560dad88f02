package diagnose

import (
	"fmt"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var tinyTaskMedian = Threshold{Metric: "median task duration (ms)", Warning: 500, Critical: 200,
	Gate: "≥ 100 tasks and scheduling + deserialization ≥ 10 % of the stage's task time; not a file-listing or " +
		"schema job; cost: the overhead of every such stage together (core time; wall = ÷ cores) ≥ 5 % of the APP " +
		"and ≥ 1 s (else info), ≥ 25 % for critical; lower is worse",
	Source: "DataFlint SmallTasksAlert (500 ms); Spark tuning guide (200 ms); the cost gate and the 10 % overhead floor " +
		"ours (they replace DataFlint's 5 000-task floor, which hid 400 tasks of 83–192 ms paying 16–32 % of their time " +
		"in overhead, and keep 400 ms tasks paying 2–4 % quiet)"}

// minTinyOverhead is the least share of a stage's task time spent
// scheduling and deserializing for its tasks to count as tiny: below it,
// fewer, larger tasks would save next to nothing.
const minTinyOverhead = 0.10

// TinyTasks reports stages with so many short tasks that scheduling dominates.
var TinyTasks = &Rule{
	ID:         "tiny-tasks",
	Title:      "Too many tiny tasks",
	Recipe:     "troubleshoot/slow-spark-jobs.md#tiny-tasks",
	Doc:        "Stages whose many tasks are so short that scheduling and start-up dominate, judged by what that overhead cost the whole application.",
	Thresholds: []Threshold{tinyTaskMedian},
	Run:        runTinyTasks,
}

// tinyStage is one stage whose tasks are tiny, before the gate.
type tinyStage struct {
	s          *analyze.Stage
	sev        Severity
	overheadMs int64
	overhead   float64 // of the stage's task time
	cost       *Cost
}

// runTinyTasks finds the stages of tiny tasks and gates them together:
// the overhead they paid is the application's, however it is spread over
// stages (sixty stages at 1 % each are 60 %, and one fix: fewer
// partitions). Each stage is a finding of its own, which Run folds.
func runTinyTasks(p *Pass) []Finding {
	var tiny []tinyStage
	var wallMs, coreMs int64
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.Succeeded == 0 || s.NumTasks < 100 || metadataStage(p, s) {
			continue
		}
		sev := tinyTaskMedian.Level(float64(s.TaskDurationMs.P50))
		overheadMs := s.SchedulerDelayMs + s.DeserializeMs
		overhead := analyze.Ratio(overheadMs, s.TaskTimeMs)
		if sev == None || overhead < minTinyOverhead {
			continue
		}
		// In wall time: spread over the cores (the stage's mean parallelism
		// when the log names none), and never more than the stage lasted.
		cores := int64(s.CoresAvailable)
		if cores <= 0 && s.DurationMs > 0 {
			cores = s.TaskTimeMs / s.DurationMs
		}
		cost := p.cost(min(overheadMs/max(cores, 1), max(s.DurationMs, 0)), overheadMs,
			"core: the tasks' scheduler delay and deserialization, which fewer, larger tasks would not pay; wall: that ÷ the cores")
		wallMs += cost.WallMs
		coreMs += cost.CoreMs
		tiny = append(tiny, tinyStage{s: s, sev: sev, overheadMs: overheadMs, overhead: overhead, cost: cost})
	}
	app := p.cost(wallMs, coreMs, "")
	out := make([]Finding, 0, len(tiny))
	for _, t := range tiny {
		s := t.s
		out = append(out, Finding{Severity: gate(t.sev, app), StageIDs: []int{s.StageID}, Cost: t.cost,
			Detail: fmt.Sprintf("%s ran %d tasks with a median of %d ms; scheduling and deserialization took %.0f%% of task time.",
				stageRef(s), s.NumTasks, s.TaskDurationMs.P50, 100*t.overhead),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "numTasks": s.NumTasks,
				"medianTaskMs": s.TaskDurationMs.P50, "overheadRatio": round(t.overhead), "overheadMs": t.overheadMs,
				"appOverheadShare": round(app.Share())}})
	}
	return out
}

// metadataPrefixes begin the names of the stages Spark runs to list
// input files or infer a schema when a DataFrame is created (outside any
// SQL query): their task count is the number of paths or files, and
// "fewer tasks" is no advice for them.
var metadataPrefixes = []string{"load at ", "parquet at ", "json at ", "csv at ", "orc at ", "text at ", "table at ",
	"listLeafFiles", "Listing leaf files"}

// metadataStage tells whether s lists files or infers a schema: a job
// Spark describes as listing leaf files, or a reader's stage outside any
// SQL query that shuffles nothing.
func metadataStage(p *Pass, s *analyze.Stage) bool {
	if p.Attempt != nil {
		for _, id := range s.JobIDs {
			if j := p.Attempt.Job(id); j != nil && strings.HasPrefix(j.Description, "Listing leaf files") {
				return true
			}
		}
	}
	if s.SQLExecutionID >= 0 || s.ShuffleReadBytes > 0 || s.ShuffleWriteBytes > 0 {
		return false
	}
	for _, pre := range metadataPrefixes {
		if strings.HasPrefix(s.Name, pre) {
			return true
		}
	}
	return false
}
