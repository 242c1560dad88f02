package diagnose

import "fmt"

// TinyTasks reports stages with so many short tasks that scheduling dominates.
var TinyTasks = &Rule{
	ID:     "tiny-tasks",
	Title:  "Too many tiny tasks",
	Recipe: "troubleshoot/slow-spark-jobs.md#tiny-tasks",
	Doc:    "A stage has thousands of tasks whose median duration is so short that scheduling and start-up dominate.",
	Thresholds: []Threshold{{Metric: "median task duration (ms), with task count", Warning: 500, Critical: 200,
		Gate:   "> 5 000 tasks (warning), > 20 000 tasks (critical); lower is worse",
		Source: "DataFlint SmallTasksAlert (500 ms, 5 000); Spark tuning guide (200 ms); 20 000 ours"}},
	Run: runTinyTasks,
}

func runTinyTasks(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		if s.Succeeded == 0 {
			continue
		}
		med := s.TaskDurationMs.P50
		sev := None
		switch {
		case s.NumTasks > 20000 && med < 200:
			sev = Critical
		case s.NumTasks > 5000 && med < 500:
			sev = Warning
		}
		if sev == None {
			continue
		}
		overhead := 0.0
		if s.TaskTimeMs > 0 {
			overhead = float64(s.SchedulerDelayMs+s.DeserializeMs) / float64(s.TaskTimeMs)
		}
		out = append(out, Finding{Severity: sev, StageIDs: []int{s.StageID},
			Detail: fmt.Sprintf("%s ran %d tasks with a median of %d ms; scheduling and deserialization took %.0f%% of task time.",
				stageRef(s), s.NumTasks, med, 100*overhead),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "numTasks": s.NumTasks,
				"medianTaskMs": med, "overheadRatio": round(overhead)}})
	}
	return out
}
