package analyze

import (
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// stageStats computes one stage attempt's statistics, group by group
// (capacity is filled later, from every stage's span: stageCores).
func stageStats(s *model.StageAttempt, cold coldTasks) Stage {
	out := Stage{StageID: s.StageID, AttemptID: s.AttemptID, Name: s.Name, Status: s.Status,
		JobIDs: s.JobIDs, SQLExecutionID: -1, NumTasks: s.NumTasks,
		SubmissionTime: s.SubmissionTime, CompletionTime: s.CompletionTime, FirstLaunchTime: s.FirstLaunchTime}
	out.DurationMs, out.QueuedMs = stageDuration(s)
	out.TaskTimes = taskTimes(s)
	out.StageIO = stageIO(&s.Metrics)
	out.Balance = balance(s, out.TaskDurationMs, out.DurationMs, cold)
	out.Outcomes = outcomes(s)
	out.GPU = gpuStage(s)
	return out
}

// taskDuration is a finished attempt's launch-to-finish time; ok is false
// for an attempt still running (FinishTime 0).
func taskDuration(t *model.Task) (ms int64, ok bool) {
	if t.FinishTime == 0 {
		return 0, false
	}
	return model.Span(t.LaunchTime, t.FinishTime), true
}

// taskTimes sums the stage's task time as Spark's stage page splits it;
// the quantiles are of successful attempts, the sums of every finished
// one.
func taskTimes(s *model.StageAttempt) TaskTimes {
	m := &s.Metrics
	out := TaskTimes{GCTimeMs: m.JvmGcTime, DeserializeMs: m.ExecutorDeserializeTime, SerializeMs: m.ResultSerializationTime,
		RunTimeTotalMs: m.ExecutorRunTime, CPUTimeMs: m.ExecutorCpuTime / 1e6}
	durs := make([]int64, 0, len(s.Tasks))
	runs := make([]int64, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		d, ok := taskDuration(t)
		if !ok {
			continue
		}
		out.TaskTimeMs = model.SatAdd(out.TaskTimeMs, d)
		run := t.Metric(model.TMExecutorRunTime)
		out.PeakExecutionMemoryBytes = max(out.PeakExecutionMemoryBytes, t.Metric(model.TMPeakExecutionMemory))
		// A task's GC time is the JVM's for the whole executor while it
		// ran: capped at its run time, a share of run time stays ≤ 100 %.
		out.GCShareMs = model.SatAdd(out.GCShareMs, min(max(t.Metric(model.TMJvmGcTime), 0), max(run, 0)))
		delay := model.SatAdd(d, -model.SatAdd(model.SatAdd(max(run, 0), max(t.Metric(model.TMExecutorDeserializeTime), 0)),
			max(t.Metric(model.TMResultSerializationTime), 0)))
		if t.GettingResultTime > 0 {
			delay = model.SatAdd(delay, -model.Span(t.GettingResultTime, t.FinishTime))
		}
		out.SchedulerDelayMs = model.SatAdd(out.SchedulerDelayMs, max(delay, 0))
		if t.Successful() {
			durs = append(durs, d)
			runs = append(runs, run)
		}
	}
	if len(durs) > 0 {
		out.TaskDurationMs = quantiles(durs)
		out.RunTimeMs = quantiles(runs)
	}
	return out
}

// stageIO is the stage's data totals, from Spark's stage metrics.
func stageIO(m *model.TaskMetrics) StageIO {
	return StageIO{InputBytes: m.InputBytesRead, InputRecords: m.InputRecordsRead,
		OutputBytes: m.OutputBytesWritten, OutputRecords: m.OutputRecordsWritten,
		ShuffleReadBytes: m.ShuffleReadBytes(), ShuffleReadRecords: m.ShuffleRead.RecordsRead,
		ShuffleWriteBytes: m.ShuffleWrite.BytesWritten, ShuffleWriteRecords: m.ShuffleWrite.RecordsWritten,
		ShuffleWriteTimeNs: m.ShuffleWrite.WriteTime, FetchWaitMs: m.ShuffleRead.FetchWaitTime,
		MemorySpilledBytes: m.MemoryBytesSpilled, DiskSpilledBytes: m.DiskBytesSpilled,
		ResultBytes: m.ResultSize}
}

// outcomes counts how the stage's task attempts ended and what the
// failed, killed and losing speculative attempts cost.
func outcomes(s *model.StageAttempt) Outcomes {
	out := Outcomes{FailureReason: s.FailureReason}
	succeeded := map[int]bool{}
	for _, t := range s.Tasks {
		if t.Successful() {
			succeeded[int(t.Index)] = true
		}
	}
	for _, t := range s.Tasks {
		if t.Speculative {
			out.SpeculativeTasks++
		}
		d, ok := taskDuration(t)
		if !ok {
			// An attempt still running when its stage completed lost the
			// race to another attempt of its task (a speculative copy, or
			// the original); the log ends before its kill is recorded
			// when the application stops first.
			if succeeded[int(t.Index)] && s.CompletionTime != model.NoTime && t.LaunchTime > 0 {
				out.SpeculationWasteMs = model.SatAdd(out.SpeculationWasteMs, model.Span(t.LaunchTime, s.CompletionTime))
			}
			continue
		}
		out.Attempts++
		switch {
		case t.Successful():
			out.Succeeded++
			if t.Speculative {
				out.SpeculativeWins++
			}
		case killedAttempt(t):
			out.Killed++
			out.KilledTaskMs = model.SatAdd(out.KilledTaskMs, d)
			// A killed attempt whose index succeeded elsewhere lost a
			// speculation race (Spark: "another attempt succeeded").
			if succeeded[int(t.Index)] {
				out.SpeculationWasteMs = model.SatAdd(out.SpeculationWasteMs, d)
			}
		default:
			out.Failed++
			out.FailedTaskMs = model.SatAdd(out.FailedTaskMs, d)
			if t.EndReason == "FetchFailed" {
				out.FetchFailures++
			}
			if out.FailureReasons == nil {
				out.FailureReasons = map[string]int{}
			}
			out.FailureReasons[failureClass(t)]++
		}
	}
	return out
}

// stageDuration is the stage attempt's duration as Spark's UI shows it —
// from its first task's launch to its completion (its last task's end
// while it runs or when the log lacks the completion) — and the time it
// queued between submission and that first launch, waiting for a core.
func stageDuration(s *model.StageAttempt) (durationMs, queuedMs int64) {
	first, last := int64(0), int64(0)
	for _, t := range s.Tasks {
		if t.LaunchTime > 0 && (first == 0 || t.LaunchTime < first) {
			first = t.LaunchTime
		}
		last = max(last, t.FinishTime)
	}
	end := s.CompletionTime
	if end == model.NoTime {
		end = last
	}
	if first == 0 { // no task ran: submission to completion
		if s.SubmissionTime != model.NoTime && s.CompletionTime != model.NoTime {
			return max(s.CompletionTime-s.SubmissionTime, 0), 0
		}
		return 0, 0
	}
	if s.SubmissionTime != model.NoTime && first > s.SubmissionTime {
		queuedMs = first - s.SubmissionTime
	}
	return max(end-first, 0), queuedMs
}

// failureClass names why a task attempt failed: the exception class for
// ExceptionFailure, else Spark's end reason.
func failureClass(t *model.Task) string {
	if t.EndReason == "ExceptionFailure" {
		msg := t.ErrorMessage()
		if i := strings.IndexAny(msg, ":\n"); i > 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return msg
		}
	}
	if t.EndReason == "" {
		return "unknown"
	}
	return t.EndReason
}

// killedAttempt tells whether a finished attempt was killed rather than
// failed (a speculation race lost, a commit denied).
func killedAttempt(t *model.Task) bool {
	return t.Killed || t.EndReason == "TaskKilled" || t.EndReason == "TaskCommitDenied"
}
