package delta

import (
	"encoding/json"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// AppRows is what one analysed application attempt adds to the tables.
type AppRows struct {
	App       AppRow
	Jobs      []JobRow
	Stages    []StageRow
	Executors []ExecutorRow
	Findings  []FindingRow
}

func msTime(ms int64) *time.Time {
	if ms == model.NoTime {
		return nil
	}
	t := time.UnixMilli(ms).UTC()
	return &t
}

func msTimePtr(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	return msTime(*ms)
}

// RowsOf turns a replayed attempt and its report into table rows. Spark
// properties pass through red (widened by the app's own
// spark.redaction.regex) so that no secret reaches a table.
func RowsOf(a *model.Attempt, r *reportv1.Report, red *Redactor, now time.Time) AppRows {
	red = red.ForApp(a.Env.SparkProperties)
	id, att := r.App.ID, r.App.AttemptID
	out := AppRows{App: AppRow{
		AppID: id, AttemptID: att, Name: r.App.Name, User: r.App.User, SparkVersion: r.App.SparkVersion,
		Master: red.Value("spark.master", r.App.Master), StartTime: msTime(r.App.StartTime),
		EndTime: msTimePtr(r.App.EndTime), DurationMs: r.App.DurationMs, Completed: r.App.Completed,
		ResourceWaitMs: ptr(r.Phases.ResourceWaitMs), ComputeMs: ptr(r.Phases.ComputeMs),
		OutputWriteMs: ptr(r.Phases.OutputWriteMs), DriverOnlyMs: ptr(r.Phases.DriverOnlyMs),
		Findings: int64(len(r.Findings)), LogPath: r.Log.Path, LogCodec: r.Log.Codec, LogBytes: r.Log.Bytes,
		LogEvents: r.Log.Events, LogBadLines: r.Log.BadLines,
		SparkProperties: red.Map(a.Env.SparkProperties), WrittenAt: now.UTC(),
	}}
	if c := r.ResourceCost; c != nil {
		core, mem := c.Total.CoreHours, c.Total.MemoryGBHours
		out.App.CoreHours, out.App.MemoryGBHours = &core, &mem
	}
	for _, j := range a.Jobs {
		row := JobRow{AppID: id, AttemptID: att, JobID: int64(j.ID), Name: j.Name, Description: j.Description,
			JobGroup: j.JobGroup, Status: j.Status, SubmissionTime: msTime(j.SubmissionTime),
			CompletionTime: msTime(j.CompletionTime), StageIDs: int64s(j.StageIDs),
			NumTasks: int64(j.NumTasks), CompletedTasks: int64(j.CompletedTasks), SkippedTasks: int64(j.SkippedTasks),
			FailedTasks: int64(j.FailedTasks), KilledTasks: int64(j.KilledTasks)}
		if j.SubmissionTime != model.NoTime && j.CompletionTime != model.NoTime {
			d := j.CompletionTime - j.SubmissionTime
			row.DurationMs = &d
		}
		if j.SQLExecutionID >= 0 {
			x := j.SQLExecutionID
			row.SQLExecutionID = &x
		}
		out.Jobs = append(out.Jobs, row)
	}
	times := map[[2]int][2]int64{}
	for _, s := range a.Stages {
		times[[2]int{s.StageID, s.AttemptID}] = [2]int64{s.SubmissionTime, s.CompletionTime}
	}
	for _, s := range r.Stages {
		tm, ok := times[[2]int{s.StageID, s.AttemptID}]
		if !ok {
			tm = [2]int64{model.NoTime, model.NoTime}
		}
		out.Stages = append(out.Stages, StageRow{AppID: id, AttemptID: att, StageID: int64(s.StageID),
			StageAttemptID: int64(s.AttemptID), Name: s.Name, Status: s.Status, NumTasks: int64(s.NumTasks),
			SubmissionTime: msTime(tm[0]), CompletionTime: msTime(tm[1]), DurationMs: s.DurationMs,
			TaskDurationP50Ms: s.TaskDurationMs.P50, TaskDurationP95Ms: s.TaskDurationMs.P95,
			TaskDurationMaxMs: s.TaskDurationMs.Max, GCTimeMs: s.GCTimeMs, InputBytes: s.InputBytes,
			OutputBytes: s.OutputBytes, ShuffleReadBytes: s.ShuffleReadBytes, ShuffleWriteBytes: s.ShuffleWriteBytes,
			FetchWaitMs: s.FetchWaitMs, MemorySpilledBytes: s.MemorySpilledBytes, DiskSpilledBytes: s.DiskSpilledBytes,
			SkewDurationMaxOverMedian: s.Skew.DurationMaxOverMedian, SkewBytesMaxOverMedian: s.Skew.BytesMaxOverMedian})
	}
	for _, e := range r.Executors {
		out.Executors = append(out.Executors, ExecutorRow{AppID: id, AttemptID: att, ExecutorID: e.ID, Host: e.Host,
			Cores: int64(e.Cores), AddedTime: msTime(e.AddedTime), RemovedTime: msTimePtr(e.RemovedTime),
			RemovedReason: e.RemovedReason, PeakJVMHeapBytes: e.PeakJVMHeapBytes, PeakPythonRSSBytes: e.PeakPythonRSSBytes,
			TaskTimeMs: e.TaskTimeMs, GCTimeMs: e.GCTimeMs})
	}
	for _, f := range r.Findings {
		ev, err := json.Marshal(f.Evidence)
		if err != nil || f.Evidence == nil {
			ev = []byte("{}")
		}
		out.Findings = append(out.Findings, FindingRow{AppID: id, AttemptID: att, Rule: f.Rule, Severity: f.Severity.String(),
			Title: f.Title, Detail: f.Detail, StageIDs: int64s(f.StageIDs), ExecutorIDs: append([]string{}, f.ExecutorIDs...),
			Evidence: string(ev), Recipe: f.Recipe})
	}
	return out
}

func ptr(v int64) *int64 { return &v }

func int64s(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}
