package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var executorsLost = Threshold{Metric: "executors lost to the application", Warning: 1, Critical: 3,
	Gate: "critical also on any memory kill that failed tasks, or a task failing spark.task.maxFailures times; " +
		"preemption/decommission only: info",
	Source: "shape: Dr. Elephant tuning_20190221 StagesWithFailedTasksHeuristic; counts ours " +
		"(spark.executor.maxNumFailures = max(3, 2 × executors))"}

// ExecutorLost reports executors that died for reasons caused by the application.
var ExecutorLost = &Rule{
	ID:     "executor-lost",
	Title:  "Executors lost",
	Recipe: "troubleshoot/oom-and-spill.md#exit-codes",
	Doc: "Executors that exited because of the application (memory kills, OOM, crashes, heartbeat loss), " +
		"apart from removals that are not its fault (idle release, preemption, decommission, shutdown).",
	Thresholds: []Threshold{executorsLost},
	Run:        runExecutorLost,
}

func runExecutorLost(p *Pass) []Finding {
	var lost, benign []*analyze.Executor
	memoryKillFailedTasks := false
	for i := range p.Result.Executors {
		e := &p.Result.Executors[i]
		switch {
		// Spark's own verdict ("Exit Caused By App") wins over the reason text.
		case e.Loss.CausedByApp || (e.Loss.Cause.AppFault() && e.RemovedTime != -1 && !e.Loss.Unrelated):
			lost = append(lost, e)
			if e.Loss.Cause.IsMemoryKill() && e.Loss.FailedTasks > 0 {
				memoryKillFailedTasks = true
			}
		case e.Loss.Cause == analyze.CausePreempted || e.Loss.Cause == analyze.CauseDecommission:
			benign = append(benign, e)
		}
	}
	if len(lost) == 0 && len(benign) == 0 {
		return nil
	}
	maxedStages := tasksAtMaxFailures(p)
	sev := Info
	if len(lost) > 0 {
		sev = executorsLost.Level(float64(len(lost)))
		if memoryKillFailedTasks || len(maxedStages) > 0 {
			sev = Critical
		}
	}
	list := lost
	if len(lost) == 0 {
		list = benign
	}
	var ids []string
	var failed int
	causes := map[string]int{}
	var details []map[string]any
	for _, e := range list {
		ids = append(ids, e.ID)
		failed += e.Loss.FailedTasks
		causes[string(e.Loss.Cause)]++
		details = append(details, map[string]any{"executorId": e.ID, "host": e.Host, "exitCode": e.Loss.ExitCodeOrNil(),
			"cause": string(e.Loss.Cause), "failedTasks": e.Loss.FailedTasks, "removedTime": e.RemovedTime})
	}
	first := list[0]
	// The fetch failures of shuffle output the lost executors held are
	// this loss's consequence (shuffle-bottleneck leaves them out).
	fetchFailed, fetchStages := 0, []int(nil)
	for _, c := range p.Result.Failures.Causes {
		if c.LostExecutor != "" && slices.Contains(ids, c.LostExecutor) {
			fetchFailed += c.Attempts
			fetchStages = append(fetchStages, c.StageIDs...)
		}
	}
	stages := append(lostStages(p, ids), fetchStages...)
	stages = append(stages, maxedStages...)
	slices.Sort(stages)
	stages = slices.Compact(stages)
	detail := fmt.Sprintf("%d executor(s) lost (%s); the first, executor %s, exited %s (%s); %d task attempt(s) failed with them.",
		len(list), causeSummary(causes), first.ID, first.Loss.ExitCodeText(), first.Loss.Cause, failed)
	if fetchFailed > 0 {
		detail += fmt.Sprintf(" %d fetch failure(s) followed: the shuffle output they held was lost and recomputed.", fetchFailed)
	}
	return []Finding{{Severity: sev, ExecutorIDs: ids, StageIDs: stages,
		Detail: detail,
		Evidence: map[string]any{"lostExecutors": len(lost), "benignLosses": len(benign), "exitCode": first.Loss.ExitCodeOrNil(),
			"fetchFailuresCaused": fetchFailed,
			"cause":               string(first.Loss.Cause), "causes": causes, "failedTasks": failed, "executors": details,
			"stagesWithTaskAtMaxFailures": maxedStages}}}
}

func causeSummary(causes map[string]int) string {
	keys := make([]string, 0, len(causes))
	for k := range causes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", causes[k], k))
	}
	return strings.Join(parts, ", ")
}

// lostStages lists stages with tasks failed by the loss of one of ids.
func lostStages(p *Pass, ids []string) []int {
	var out []int
	for _, s := range p.Attempt.Stages {
		for _, t := range s.Tasks {
			if t.EndReason == "ExecutorLostFailure" && slices.Contains(ids, t.ExecutorID) {
				out = append(out, s.StageID)
				break
			}
		}
	}
	return out
}

// tasksAtMaxFailures lists stages where one task index failed
// spark.task.maxFailures times (which aborts the job).
func tasksAtMaxFailures(p *Pass) []int {
	limit := p.Result.Config.TaskMaxFailures
	var out []int
	for _, s := range p.Attempt.Stages {
		fails := map[int]int{}
		for _, t := range s.Tasks {
			if t.Failed {
				fails[t.Index]++
				if fails[t.Index] == limit {
					out = append(out, s.StageID)
				}
			}
		}
	}
	return out
}
