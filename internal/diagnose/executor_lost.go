package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var executorsLost = Threshold{Metric: "executors lost to the application", Warning: 1, Critical: 3,
	Gate: "critical also on any memory kill that failed tasks, or a task failing spark.task.maxFailures times; " +
		"preemption/decommission/lost node only: info",
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
		// Spark's own verdict ("Exit Caused By App") wins over the reason
		// text — but it is about the task that was running, not the
		// executor: a JVM that died of OutOfMemoryError (exit 52) or was
		// killed for its memory is the application's loss even when Spark
		// calls it unrelated to the task that ran beside the one that ran
		// out.
		case e.Loss.CausedByApp || (e.Loss.Cause.AppFault() && e.RemovedTime != -1 &&
			(!e.Loss.Unrelated || e.Loss.Cause.IsMemoryKill())):
			lost = append(lost, e)
			if e.Loss.Cause.IsMemoryKill() && e.Loss.FailedTasks > 0 {
				memoryKillFailedTasks = true
			}
		case e.Loss.Cause == analyze.CausePreempted || e.Loss.Cause == analyze.CauseDecommission ||
			e.Loss.Cause == analyze.CauseNodeLost:
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
	cons := lossConsequences(p, ids)
	if len(cons.failedJobs) > 0 && len(lost) > 0 {
		sev = Critical
	}
	stages := append(lostStages(p, ids), cons.fetchStages...)
	stages = append(stages, maxedStages...)
	slices.Sort(stages)
	stages = slices.Compact(stages)
	detail := fmt.Sprintf("%d executor(s) lost (%s); the first, executor %s, exited %s (%s); %d task attempt(s) failed with them.",
		len(list), causeSummary(causes), first.ID, first.Loss.ExitCodeText(), first.Loss.Cause, failed)
	if cons.fetchFailed > 0 {
		detail += fmt.Sprintf(" %d fetch failure(s) followed: the shuffle output they held was lost and recomputed.", cons.fetchFailed)
	}
	if len(cons.failedJobs) > 0 {
		detail += fmt.Sprintf(" The losses failed %s.", plural("job", cons.failedJobs))
		if cons.root && p.Result.Failures.Outcome.Summary != "" {
			detail += " " + capitalize(p.Result.Failures.Outcome.Summary) + "."
		}
	}
	return []Finding{{Severity: sev, ExecutorIDs: ids, StageIDs: stages,
		Detail: detail,
		Evidence: map[string]any{"lostExecutors": len(lost), "benignLosses": len(benign), "exitCode": first.Loss.ExitCodeOrNil(),
			"fetchFailuresCaused": cons.fetchFailed, "failedJobs": nonNil(cons.failedJobs), "rootCause": cons.root,
			"removals": removals(p),
			"cause":    string(first.Loss.Cause), "causes": causes, "failedTasks": failed, "executors": details,
			"stagesWithTaskAtMaxFailures": maxedStages}}}
}

// consequences are what executor losses brought along.
type consequences struct {
	fetchFailed int   // fetch failures of the output they held
	fetchStages []int // the stages those failed in
	failedJobs  []int // jobs their tasks' failures or those fetches failed
	root        bool  // one of them is the application's root cause
}

// lossConsequences gathers the consequences of losing executors ids: the
// fetch failures of shuffle output they held (shuffle-bottleneck leaves
// them out) and the jobs the lost executors' tasks or those fetches failed.
func lossConsequences(p *Pass, ids []string) consequences {
	var out consequences
	for i, c := range p.Result.Failures.Causes {
		ours := c.LostExecutor != "" && slices.Contains(ids, c.LostExecutor)
		if ours {
			out.fetchFailed += c.Attempts
			out.fetchStages = append(out.fetchStages, c.StageIDs...)
		}
		if c.Reason == "ExecutorLostFailure" && slices.ContainsFunc(c.ExecutorIDs, func(id string) bool { return slices.Contains(ids, id) }) {
			ours = true
		}
		if ours {
			out.failedJobs = append(out.failedJobs, c.FailedJobs...)
			out.root = out.root || i == p.Result.Failures.Outcome.Cause
		}
	}
	slices.Sort(out.failedJobs)
	out.failedJobs = slices.Compact(out.failedJobs)
	return out
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
		fails := map[int32]int{}
		for _, t := range s.Tasks {
			if t.Failed {
				fails[t.Index]++
				if fails[t.Index] == limit {
					out = addOnce(out, s.StageID)
				}
			}
		}
	}
	return out
}

// removals counts the executors the log shows removed, for any reason.
func removals(p *Pass) int {
	n := 0
	for _, e := range p.Result.Executors {
		if e.RemovedTime != -1 && e.ID != "driver" {
			n++
		}
	}
	return n
}
