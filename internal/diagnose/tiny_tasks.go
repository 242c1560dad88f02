package diagnose

import "fmt"

var tinyTaskMedian = Threshold{Metric: "median task duration (ms)", Warning: 500, Critical: 200,
	Gate: "≥ 100 tasks; cost: the tasks' scheduler delay + deserialization (core time; wall = ÷ cores) ≥ 5 % of the " +
		"app and ≥ 1 s (else info), ≥ 25 % for critical; lower is worse",
	Source: "DataFlint SmallTasksAlert (500 ms); Spark tuning guide (200 ms); the cost gate ours (it replaces DataFlint's " +
		"5 000-task floor, which hid 400 tasks of 83–192 ms paying 16–32 % of their time in overhead)"}

// TinyTasks reports stages with so many short tasks that scheduling dominates.
var TinyTasks = &Rule{
	ID:         "tiny-tasks",
	Title:      "Too many tiny tasks",
	Recipe:     "troubleshoot/slow-spark-jobs.md#tiny-tasks",
	Doc:        "A stage has thousands of tasks whose median duration is so short that scheduling and start-up dominate.",
	Thresholds: []Threshold{tinyTaskMedian},
	Run:        runTinyTasks,
}

func runTinyTasks(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.Succeeded == 0 || s.NumTasks < 100 {
			continue
		}
		med := s.TaskDurationMs.P50
		sev := tinyTaskMedian.Level(float64(med))
		if sev == None {
			continue
		}
		overheadMs := s.SchedulerDelayMs + s.DeserializeMs
		overhead := 0.0
		if s.TaskTimeMs > 0 {
			overhead = float64(overheadMs) / float64(s.TaskTimeMs)
		}
		// In wall time: spread over the cores (the stage's mean parallelism
		// when the log names none), and never more than the stage lasted.
		cores := int64(s.CoresAvailable)
		if cores <= 0 && s.DurationMs > 0 {
			cores = s.TaskTimeMs / s.DurationMs
		}
		cost := p.cost(min(overheadMs/max(cores, 1), max(s.DurationMs, 0)), overheadMs,
			"core: the tasks' scheduler delay and deserialization, which fewer, larger tasks would not pay; wall: that ÷ the cores")
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
			Detail: fmt.Sprintf("%s ran %d tasks with a median of %d ms; scheduling and deserialization took %.0f%% of task time.",
				stageRef(s), s.NumTasks, med, 100*overhead),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "numTasks": s.NumTasks,
				"medianTaskMs": med, "overheadRatio": round(overhead), "overheadMs": overheadMs}})
	}
	return out
}
