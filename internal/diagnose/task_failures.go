package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var failureCost = Threshold{Metric: "failed attempts' task time and the longest delay of one task, ÷ the app's core and wall time",
	Warning: minCostShare, Critical: 1,
	Gate:   "critical when the cause failed a job; warning at ≥ 5 % of the app's wall or core time (and ≥ 1 s); else info",
	Source: "ours: cost share as for every rule (diagnose.Cost); a failed job is always critical"}

// TaskFailures reports each root cause of failed task attempts — the
// exception, its message and the user's line — with what it cost and what
// it failed, and the failed jobs no task failure explains.
var TaskFailures = &Rule{
	ID:     "task-failures",
	Title:  "Task failures",
	Recipe: "troubleshoot/slow-spark-jobs.md#task-failures",
	Doc: "Task attempts fail: one finding per root cause (exception class, message, user frame), critical when it " +
		"failed a job, a warning when the retried attempts cost a noticeable share of the application; jobs " +
		"cancelled by a shutdown or by another failure are folded under the cause. Executor losses and the " +
		"fetch failures they cause are executor-lost's, other fetch failures shuffle-bottleneck's.",
	Thresholds: []Threshold{failureCost},
	Run:        runTaskFailures,
}

func runTaskFailures(p *Pass) []Finding {
	f := &p.Result.Failures
	out, root, shutdown := causeFindings(p)
	// What the stop and the root cause brought along: failures after the
	// SparkContext began to stop, jobs it cancelled, jobs no task failure
	// explains. Folded under the root cause when this rule reports it.
	var jobs []analyze.JobFailure
	for _, j := range f.Jobs {
		if j.Cause < 0 {
			jobs = append(jobs, j)
		}
	}
	if root >= 0 {
		fd := &out[root]
		cons := fd.Evidence["consequences"].([]string)
		for _, j := range jobs {
			cons = append(cons, fmt.Sprintf("job %d: %s", j.JobID, j.Message))
		}
		fd.Evidence["consequences"] = append(cons, shutdown...)
		return out
	}
	if f.Outcome.Cause >= 0 {
		return out // another rule reports the root cause these follow
	}
	return append(out, unexplained(p, jobs, shutdown)...)
}

// causeFindings are the findings of the causes this rule reports (not
// executor losses and fetch failures), the index of the application's
// root cause among them (-1 when another rule's), and the failures after
// the stop, said in a line each.
func causeFindings(p *Pass) (out []Finding, root int, shutdown []string) {
	f := &p.Result.Failures
	o := &f.Outcome
	root = -1
	for i := range f.Causes {
		c := &f.Causes[i]
		if c.Reason == "ExecutorLostFailure" || c.Reason == "FetchFailed" {
			continue // executor-lost and shuffle-bottleneck explain these
		}
		if c.Shutdown {
			shutdown = append(shutdown, fmt.Sprintf("%s: %s (%s after the stop)", plural("stage", c.StageIDs),
				errorText(c.Error), timesWord(c.Attempts, "attempt")))
			continue
		}
		fd := causeFinding(p, c)
		if i == o.Cause {
			root = len(out)
			fd.Evidence["rootCause"] = true
			if o.Summary != "" {
				fd.Detail += " " + capitalize(o.Summary) + "."
			}
		}
		out = append(out, fd)
	}
	return out, root, shutdown
}

// unexplained reports, when no task failure is the root cause, the failed
// jobs no task failure explains (by kind) and the failures after the stop,
// with the jobs the stop cancelled when there are such.
func unexplained(p *Pass, jobs []analyze.JobFailure, shutdown []string) []Finding {
	var out []Finding
	byKind := map[string][]analyze.JobFailure{}
	var kinds []string
	for _, j := range jobs {
		if _, ok := byKind[j.Kind]; !ok {
			kinds = append(kinds, j.Kind)
		}
		byKind[j.Kind] = append(byKind[j.Kind], j)
	}
	folded := false
	for _, k := range kinds {
		fd := jobsFinding(p, k, byKind[k])
		if k == analyze.JobCancelledByShutdown && len(shutdown) > 0 {
			// What failed once the stop began belongs with the jobs it cancelled.
			fd.Detail += " Task attempts failed as it stopped, what the stop did and not a cause: " +
				strings.Join(shutdown, "; ") + "."
			fd.Evidence["consequences"] = shutdown
			folded = true
		}
		out = append(out, fd)
	}
	if len(shutdown) > 0 && !folded {
		out = append(out, Finding{Severity: Info, Title: "Failures after the application began to stop",
			Detail: "Task attempts failed once the SparkContext was stopping; they are what the stop did, not a " +
				"cause: " + strings.Join(shutdown, "; ") + ".",
			Evidence: map[string]any{"stopTime": p.Result.Failures.StopTime, "consequences": shutdown}})
	}
	return out
}

// causeFinding is one root cause of failed task attempts.
func causeFinding(p *Pass, c *analyze.FailureCause) Finding {
	e := c.Error
	cost := p.cost(c.DelayMs, c.WastedMs, "task time of the failed attempts; wall: the longest one task was held back")
	sev := gate(Warning, cost)
	var what string
	switch {
	case c.Fatal() && len(c.FailedStages) == 0:
		// No stage aborted: the task never ran again and the SparkContext
		// stopped with the jobs unfinished (an error the driver stopped on).
		sev = Critical
		what = fmt.Sprintf("The task never succeeded, and the application then stopped with %s unfinished.",
			plural("job", c.FailedJobs))
	case c.Fatal():
		sev = Critical
		what = fmt.Sprintf("A task failed %s (spark.task.maxFailures is %d), which aborted %s and failed %s; "+
			"the failed attempts used %s of task time.", times(c.MaxAttempts), p.Result.Config.TaskMaxFailures,
			plural("stage", c.FailedStages), plural("job", c.FailedJobs), fmtMs(c.WastedMs))
	case c.Recovered == c.Tasks:
		what = "Every task succeeded on retry."
	case c.Recovered == 0 && c.Tasks == 1:
		what = "The task never succeeded."
	case c.Recovered == 0:
		what = fmt.Sprintf("None of the %d tasks succeeded.", c.Tasks)
	default:
		what = fmt.Sprintf("%d of the %d tasks succeeded on retry.", c.Recovered, c.Tasks)
	}
	where := ""
	if fr := e.Frame.String(); fr != "" {
		where = " at " + fr
	}
	detail := fmt.Sprintf("%d attempt(s) of %d task(s) in %s failed with %s%s on executor(s) %s (%s). %s",
		c.Attempts, c.Tasks, plural("stage", c.StageIDs), errorText(e), where,
		strings.Join(c.ExecutorIDs, ", "), strings.Join(c.Hosts, ", "), what)
	recipe := ""
	if analyze.IsGPUOOM(e.Class) {
		// The GPU ran out of memory: GPU advice, not the JVM's.
		recipe = "troubleshoot/gpu-memory.md#gpu-out-of-memory"
		detail += " The RAPIDS Accelerator ran out of GPU memory after its retries."
	}
	return Finding{Severity: sev, Title: titleOf(e), StageIDs: c.StageIDs, ExecutorIDs: c.ExecutorIDs, Cost: cost,
		Recipe: recipe,
		Detail: detail,
		Evidence: map[string]any{"exception": e.Class, "message": e.Message, "wrapper": e.Wrapper,
			"userFrame": e.Frame.String(), "userFile": e.Frame.File, "userLine": e.Frame.Line,
			"endReason": c.Reason, "failedAttempts": c.Attempts, "tasks": c.Tasks, "recoveredTasks": c.Recovered,
			"maxAttemptsOneTask": c.MaxAttempts, "hosts": c.Hosts, "wastedMs": c.WastedMs, "delayMs": c.DelayMs,
			"failedStages": nonNil(c.FailedStages), "failedJobs": nonNil(c.FailedJobs), "firstTime": c.FirstTime,
			"consequences": []string{}}}
}

// jobsFinding reports failed jobs of one kind that no task failure explains.
func jobsFinding(p *Pass, kind string, jobs []analyze.JobFailure) Finding {
	var ids, stages []int
	for _, j := range jobs {
		ids = append(ids, j.JobID)
		stages = append(stages, j.StageIDs...)
	}
	slices.Sort(stages)
	stages = slices.Compact(stages)
	sev, title := Critical, "Job failed"
	switch kind {
	case analyze.JobCancelledByShutdown:
		sev, title = Warning, "Jobs cancelled by the application's shutdown"
	case analyze.JobCancelled:
		sev, title = Info, "Jobs cancelled"
	}
	o := &p.Result.Failures.Outcome
	return Finding{Severity: sev, Title: title, StageIDs: stages,
		Detail: fmt.Sprintf("%s: %s", capitalize(plural("job", ids)), jobs[0].Message),
		Evidence: map[string]any{"jobIds": ids, "kind": kind, "message": jobs[0].Message,
			"failedStages": nonNil(stages), "rootCause": o.Status == analyze.OutcomeFailed && o.Cause < 0 && slices.Contains(ids, o.Job)}}
}

// titleOf names a cause by its exception, short: "ValueError: cannot
// parse record 777".
func titleOf(e analyze.TaskError) string {
	t := e.Class
	if i := strings.LastIndexByte(t, '.'); i >= 0 && i < len(t)-1 && e.Message != "" {
		t = t[i+1:] // java.lang.RuntimeException → RuntimeException
	}
	if e.Message != "" {
		t += ": " + e.Message
	}
	if len(t) > 100 {
		t = t[:97] + "…"
	}
	return t
}

// errorText is the exception as a person searches for it.
func errorText(e analyze.TaskError) string {
	if e.Message == "" || strings.HasPrefix(e.Message, e.Class) {
		return cmpOr(e.Message, e.Class)
	}
	return e.Class + ": " + e.Message
}

// plural names ids: "stage 3", "stages 1, 2", "no stage".
func plural(noun string, ids []int) string {
	switch len(ids) {
	case 0:
		return "no " + noun
	case 1:
		return fmt.Sprintf("%s %d", noun, ids[0])
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return noun + "s " + strings.Join(parts, ", ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// timesWord counts a noun: "1 attempt", "4 attempts".
func timesWord(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// times says a count of attempts: "once", "4 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
