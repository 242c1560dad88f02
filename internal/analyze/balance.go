package analyze

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// coldTasks are the tasks that ran on a fresh executor: those launched on
// an executor before its first task finished. They pay the executor's
// warm-up (task deserialization, class loading, JIT compilation, Python
// workers starting), about a second, whatever their data.
type coldTasks map[*model.Task]bool

// warmUpMs is the least a fresh executor's warm-up is allowed to add to a
// task: about a second measured on an idle machine (1.1 s in issue 30's
// clean baseline), twice that allowed.
const warmUpMs = 2000

// excused tells whether t is a fresh executor's task whose excess over
// the stage's median task (med) its warm-up explains: at most warmUpMs,
// or three times the deserialization Spark timed for it — the class
// loading it measures grows with a loaded node, and JIT compilation and
// first use beside it (3.3 s and 5.5 s first tasks with 1.3 s and 2.4 s
// of deserialization on the fresh-executors scenario on a loaded machine).
// A first task slower than that is slow for another reason and counts as
// any task.
func (c coldTasks) excused(t *model.Task, med int64) bool {
	return c[t] && t.FinishTime-t.LaunchTime-med <= max(warmUpMs, 3*t.Metric(model.TMExecutorDeserializeTime))
}

// findColdTasks marks every executor's first wave of tasks.
func findColdTasks(a *model.Attempt) coldTasks {
	firstEnd := map[string]int64{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime == 0 {
				continue
			}
			if e, ok := firstEnd[t.ExecutorID]; !ok || t.FinishTime < e {
				firstEnd[t.ExecutorID] = t.FinishTime
			}
		}
	}
	out := coldTasks{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if e, ok := firstEnd[t.ExecutorID]; ok && t.FinishTime != 0 && t.LaunchTime < e {
				out[t] = true
			}
		}
	}
	return out
}

// balance measures how evenly the successful tasks shared the stage's
// work (durations, as taskTimes' quantiles, bytes and records read),
// overall and per host, whether the stage waited for its longest task,
// and what its longest warm task read against the median.
func balance(s *model.StageAttempt, durations Quantiles, stageMs int64, cold coldTasks) Balance {
	var out Balance
	type hostAcc struct {
		durs, bytes []int64
		time        int64
	}
	hosts := map[string]*hostAcc{}
	bytes := make([]int64, 0, len(s.Tasks))
	records := make([]int64, 0, len(s.Tasks))
	var longest, longestEnd, lastEnd int64
	var warm *model.Task
	for _, t := range s.Tasks {
		d, ok := taskDuration(t)
		if !ok || !t.Successful() {
			continue
		}
		b := t.Metric(model.TMInputBytesRead) + t.ShuffleReadBytes()
		if d > longest || (d == longest && t.FinishTime > longestEnd) {
			longest, longestEnd = d, t.FinishTime
		}
		if !cold.excused(t, durations.P50) && (warm == nil || d > warm.FinishTime-warm.LaunchTime) {
			warm = t
		}
		lastEnd = max(lastEnd, t.FinishTime)
		bytes = append(bytes, b)
		records = append(records, t.Metric(model.TMInputRecordsRead)+t.Metric(model.TMShuffleRecordsRead))
		h := hosts[t.Host]
		if h == nil {
			h = &hostAcc{}
			hosts[t.Host] = h
		}
		h.durs = append(h.durs, d)
		h.bytes = append(h.bytes, b)
		h.time = model.SatAdd(h.time, d)
	}
	if len(bytes) > 0 {
		out.TaskBytes = quantiles(bytes)
		out.TaskRecords = quantiles(records)
		out.SkewDuration = Ratio(durations.Max, durations.P50)
		out.SkewBytes = Ratio(out.TaskBytes.Max, out.TaskBytes.P50)
		out.MaxTaskOverStage = Ratio(durations.Max, stageMs)
		out.LongestTaskEndsStage = lastEnd-longestEnd <= max(1000, stageMs/20)
	}
	if warm != nil {
		ends := func(t *model.Task) bool { return lastEnd-t.FinishTime <= max(1000, stageMs/20) }
		out.Longest = longTask(warm, out.TaskBytes.P50, out.TaskRecords.P50)
		out.Longest.ColdSkipped = coldLonger(s, out.Longest.DurationMs, durations.P50, cold)
		out.Longest.EndsStage = ends(warm)
		out.Slow = slowTasks(s, durations.P50, out.TaskBytes.P50, out.TaskRecords.P50, cold, ends)
	}
	for h, a := range hosts {
		out.Hosts = append(out.Hosts, HostStat{Host: h, Tasks: len(a.durs), MedianTaskMs: median(a.durs),
			TaskTimeMs: a.time, MedianBytes: median(a.bytes)})
	}
	sort.Slice(out.Hosts, func(i, j int) bool { return out.Hosts[i].Host < out.Hosts[j].Host })
	return out
}

// longTask describes a task against the median task's bytes and records.
func longTask(t *model.Task, medBytes, medRecords int64) LongTask {
	m := t.Metrics()
	l := LongTask{TaskID: t.TaskID, DurationMs: model.Span(t.LaunchTime, t.FinishTime), RunMs: m.ExecutorRunTime,
		GCMs: m.JvmGcTime, Bytes: m.InputBytesRead + m.ShuffleReadBytes(),
		Records: m.InputRecordsRead + m.ShuffleRead.RecordsRead, Host: t.Host, ExecutorID: t.ExecutorID,
		Locality: t.Locality}
	l.InputRatio = max(over(l.Bytes, medBytes), over(l.Records, medRecords))
	return l
}

// coldLonger counts the stage's excused fresh-executor tasks that ran
// longer than ms.
func coldLonger(s *model.StageAttempt, ms, med int64, cold coldTasks) int {
	n := 0
	for _, c := range s.Tasks {
		if cold.excused(c, med) && c.Successful() && c.FinishTime-c.LaunchTime > ms {
			n++
		}
	}
	return n
}

// over is v ÷ med, counting a median of nothing as one unit so that a task
// that read something where the median task read nothing stands out; 0
// when v is nothing.
func over(v, med int64) float64 {
	if v <= 0 {
		return 0
	}
	return float64(v) / float64(max(med, 1))
}

// firstWaveSlackMs is how long before an executor's first finish of a
// stage a task may launch and still be the second wave: Spark records the
// finish when it has handled the result, after it launched the next task.
const firstWaveSlackMs = 50

// slowTasks are the stage's warm successful tasks that ran at least twice
// the median duration, longest first, at most 20.
func slowTasks(s *model.StageAttempt, med, medBytes, medRecords int64, cold coldTasks, ends func(*model.Task) bool) []LongTask {
	if med <= 0 {
		return nil
	}
	// Each executor's first wave in the stage: the tasks launched before
	// any of the stage's tasks on it finished, one per core it gave the
	// stage. Each of them pays for compiling the stage's generated code
	// and fetching its task binary on that JVM, side by side.
	firstEnd := map[string]int64{}
	for _, t := range s.Tasks {
		if t.FinishTime <= 0 {
			continue
		}
		if f, ok := firstEnd[t.ExecutorID]; !ok || t.FinishTime < f {
			firstEnd[t.ExecutorID] = t.FinishTime
		}
	}
	// The driver records a task's finish after it launched the task that
	// took its slot (a few ms measured): a launch within firstWaveSlackMs
	// of the first finish is the second wave's.
	firstWave := func(t *model.Task) bool {
		f, ok := firstEnd[t.ExecutorID]
		return !ok || t.LaunchTime < f-firstWaveSlackMs
	}
	var out []LongTask
	for _, t := range s.Tasks {
		if t.Successful() && !cold.excused(t, med) && t.FinishTime-t.LaunchTime >= 2*med {
			l := longTask(t, medBytes, medRecords)
			l.EndsStage, l.FirstOnExecutor = ends(t), firstWave(t)
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DurationMs > out[j].DurationMs })
	return out[:min(len(out), 20)]
}
