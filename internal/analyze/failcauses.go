package analyze

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// numbers: digits, and hex runs with a digit in them (UUIDs and hashed
// sub-directories in paths differ by executor: blockmgr-99ba4555-…/0f/).
var numbers = regexp.MustCompile(`[0-9a-f]*[0-9][0-9a-f]*`)

// taskKey names one task of a stage attempt; attempt -1 stands for every
// attempt of the stage.
type taskKey struct{ stage, attempt, index int }

// failedAttempt is one failed attempt of a task: when it ended, its cause
// (an index in causeGroups.causes) and its task id.
type failedAttempt struct {
	time   int64
	cause  int
	taskID int64
}

// causeGroups are the causes of an attempt's failed task attempts and, per
// task of each stage attempt, its failed attempts in the order they ended.
type causeGroups struct {
	causes []FailureCause
	tasks  map[taskKey][]failedAttempt
}

// groupCauses groups the failed task attempts by cause. An attempt that
// ended once the SparkContext began to stop (stop), or failed with the
// error a stop raises, belongs to a shutdown cause of its own.
func groupCauses(a *model.Attempt, stop int64) causeGroups {
	g := causeGroups{tasks: map[taskKey][]failedAttempt{}}
	idx := map[string]int{}
	var per []causeTasks
	lost := lostExecutors(a)
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if !t.Failed || t.FinishTime == 0 {
				continue
			}
			c, key := attemptCause(t, lost, stop)
			i, ok := idx[key]
			if !ok {
				i = len(g.causes)
				idx[key] = i
				c.FirstTime = t.FinishTime
				g.causes = append(g.causes, c)
				per = append(per, causeTasks{tasks: map[taskKey]int{}, ms: map[taskKey]int64{}})
			}
			c2 := &g.causes[i]
			c2.Attempts++
			c2.WastedMs = model.SatAdd(c2.WastedMs, model.Span(t.LaunchTime, t.FinishTime))
			c2.FirstTime = min(c2.FirstTime, t.FinishTime)
			c2.StageIDs = appendOnce(c2.StageIDs, s.StageID)
			c2.ExecutorIDs = appendOnceStr(c2.ExecutorIDs, t.ExecutorID)
			c2.Hosts = appendOnceStr(c2.Hosts, t.Host)
			if t.Fetch() != nil && t.Fetch().HasAddress {
				c2.FetchFrom = appendOnceStr(c2.FetchFrom, t.Fetch().ExecutorID)
			}
			k := taskKey{s.StageID, -1, int(t.Index)}
			per[i].tasks[k]++
			per[i].ms[k] = model.SatAdd(per[i].ms[k], model.Span(t.LaunchTime, t.FinishTime))
			ka := taskKey{s.StageID, s.AttemptID, int(t.Index)}
			g.tasks[ka] = append(g.tasks[ka], failedAttempt{time: t.FinishTime, cause: i, taskID: t.TaskID})
		}
	}
	for _, list := range g.tasks {
		slices.SortStableFunc(list, func(x, y failedAttempt) int { return cmp.Compare(x.time, y.time) })
	}
	g.summarize(a, per)
	return g
}

// causeTasks counts one cause's failed attempts per task (stage and index,
// any stage attempt).
type causeTasks struct {
	tasks map[taskKey]int   // failed attempts per task
	ms    map[taskKey]int64 // their Σ duration per task
}

// summarize fills what each cause says of its tasks (how many, how often
// retried, how many recovered, the longest delay) and its call site, and
// sorts its lists; per is indexed as the causes.
func (g *causeGroups) summarize(a *model.Attempt, per []causeTasks) {
	recovered := recoveredTasks(a, per)
	for i := range g.causes {
		c := &g.causes[i]
		if c.Error.Frame == (Frame{}) && c.Reason == "ExceptionFailure" {
			c.Error.Frame = callSite(a, c.StageIDs)
		}
		c.Tasks = len(per[i].tasks)
		for k, n := range per[i].tasks {
			c.MaxAttempts = max(c.MaxAttempts, n)
			c.DelayMs = max(c.DelayMs, per[i].ms[k])
			if recovered[k] {
				c.Recovered++
			}
		}
		slices.Sort(c.StageIDs)
		slices.Sort(c.ExecutorIDs)
		slices.Sort(c.Hosts)
		slices.Sort(c.FetchFrom)
	}
}

// attemptCause is a failed attempt's cause, unfilled, and the key that
// groups attempts of one cause.
func attemptCause(t *model.Task, lost lostSet, stop int64) (FailureCause, string) {
	msg := t.ErrorMessage()
	switch {
	case t.Fetch() != nil:
		msg = t.Fetch().Message
	case t.Loss() != nil:
		msg = lossMessage(t.Loss())
	}
	e := ParseTaskError(t.EndReason, msg)
	if e.Class == "" {
		e.Class = cmpOr(t.EndReason, "unknown")
	}
	c := FailureCause{Error: e, Reason: t.EndReason,
		Shutdown: stop != model.NoTime && t.FinishTime >= stop || shutdownError(msg)}
	if t.Fetch() != nil {
		c.LostExecutor = lost.before(t.Fetch(), t.FinishTime)
	}
	key := t.EndReason + "\x00" + e.Class + "\x00" + numbers.ReplaceAllString(e.Message, "N") + "\x00" +
		e.Frame.String() + "\x00" + c.LostExecutor
	if t.EndReason == "ExecutorLostFailure" {
		key = t.EndReason + "\x00" + t.ExecutorID // one cause per lost executor
	}
	if c.Shutdown {
		key += "\x00shutdown"
	}
	return c, key
}

// shutdownError tells an error that stopping the SparkContext (or the JVM
// shutting down under a running task) raises: what follows the stop, not
// what caused anything.
func shutdownError(msg string) bool {
	for _, s := range []string{"Filesystem closed", "SparkContext was shut down", "SparkContext has been shutdown",
		"stopped SparkContext", "SparkContext is shutting down", "RpcEnv already stopped"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// stopTime is when the SparkContext began to stop: the application's end,
// or the first job or stage it cancelled as it stopped when that came
// first (a log cut short has no end event); model.NoTime when neither.
func stopTime(a *model.Attempt) int64 {
	t := model.NoTime
	first := func(v int64) {
		if v != model.NoTime && v > 0 && (t == model.NoTime || v < t) {
			t = v
		}
	}
	if a.Completed {
		first(a.EndTime)
	}
	for _, j := range a.Jobs {
		if j.Status == model.JobFailed && jobFailureKind(j.ErrorMessage) == JobCancelledByShutdown {
			first(j.CompletionTime)
		}
	}
	for _, s := range a.Stages {
		if s.Status == model.StageFailed && strings.Contains(s.FailureReason, "SparkContext was shut down") {
			first(s.CompletionTime)
		}
	}
	return t
}

// recoveredTasks are the tasks (stage, every attempt, index) that succeeded,
// of the stages where one failed: a set of every task of the log was 3.7 %
// of analyze's CPU on a 1 GB log with few failures.
func recoveredTasks(a *model.Attempt, per []causeTasks) map[taskKey]bool {
	failed := map[int]bool{}
	for _, p := range per {
		for k := range p.tasks {
			failed[k.stage] = true
		}
	}
	out := map[taskKey]bool{}
	for _, s := range a.Stages {
		if !failed[s.StageID] {
			continue
		}
		for _, t := range s.Tasks {
			if t.Successful() {
				out[taskKey{s.StageID, -1, int(t.Index)}] = true
			}
		}
	}
	return out
}

// lostSet holds the executors removed for a reason other than the
// application ending or releasing them, with when they were removed.
type lostSet map[string]int64

// lostExecutors are the executors removed for a reason other than the
// application ending or releasing them.
func lostExecutors(a *model.Attempt) lostSet {
	out := lostSet{}
	for _, e := range a.Executors {
		if e.RemoveTime == model.NoTime {
			continue
		}
		switch cause, _ := ClassifyLoss(e.RemoveReason); cause {
		case CauseIdle, CauseDriver:
			continue
		}
		out[e.ID] = e.RemoveTime
	}
	return out
}

// before names the lost executor a fetch failure at time t follows: the
// executor it fetched from when that one was lost; for a fetch that names
// none (MetadataFetchFailedException, "Missing an output location": the
// map output tracker forgot the output when its executor went), the last
// executor lost before t. "" when the fetch follows no loss.
func (l lostSet) before(f *model.FetchFailure, t int64) string {
	if f.HasAddress {
		if _, ok := l[f.ExecutorID]; ok {
			return f.ExecutorID
		}
		return ""
	}
	best, at := "", int64(model.NoTime)
	for id, removed := range l {
		if removed <= t && (removed > at || removed == at && id < best) {
			best, at = id, removed
		}
	}
	return best
}

func appendOnce(s []int, v int) []int {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func appendOnceStr(s []string, v string) []string {
	if v == "" || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// lossMessage says what an ExecutorLostFailure's fields say, in one line.
func lossMessage(l *model.ExecutorLoss) string {
	who := "unrelated to the running tasks"
	if l.CausedByApp {
		who = "caused by one of the running tasks"
	}
	msg := "executor " + cmpOr(l.ExecutorID, "(unknown)") + " lost, " + who
	if l.HasReason {
		msg += ": " + l.Reason
	}
	return msg
}

// callSiteRE reads the user's line in a stage's name, Spark's call site:
// "collect at /jobs/nds_power.py:131", "count at Report.scala:42".
var callSiteRE = regexp.MustCompile(`^\S+ at (\S+):(\d+)$`)

// callSite is the user's line that started the first of stages, from its
// call site: where a failure's stack has only library frames (Spark's,
// a plugin's), the line in the user's program that ran the stage. Zero
// when the name is not a call site in the user's code.
func callSite(a *model.Attempt, stages []int) Frame {
	for _, id := range stages {
		for _, s := range a.Stages {
			if s.StageID != id {
				continue
			}
			m := callSiteRE.FindStringSubmatch(s.Name)
			if m == nil || pythonLibrary(m[1]) || strings.HasSuffix(m[1], ".java") {
				return Frame{} // "count at NativeMethodAccessorImpl.java:0": Py4J's, not the user's
			}
			line, _ := strconv.Atoi(m[2])
			return Frame{File: m[1], Line: line}
		}
	}
	return Frame{}
}
