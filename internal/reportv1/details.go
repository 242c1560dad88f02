package reportv1

import "github.com/sparkdx/sparkdx/internal/analyze"

// StageDetail is what the analyzer knows about a stage attempt beyond the
// stable "stages" keys (a separate object so those keys never change).
type StageDetail struct {
	StageID             int               `json:"stageId"`
	AttemptID           int               `json:"attemptId"`
	RunTimeMs           analyze.Quantiles `json:"runTimeMs"`
	TaskTimeMs          int64             `json:"taskTimeMs"`
	CPUTimeMs           int64             `json:"cpuTimeMs"`
	PeakExecutionMemory int64             `json:"peakExecutionMemoryBytes"` // largest task's
	DeserializeMs       int64             `json:"deserializeMs"`
	SerializeMs         int64             `json:"serializeMs"`
	SchedulerDelayMs    int64             `json:"schedulerDelayMs"`
	ShuffleWriteTimeMs  int64             `json:"shuffleWriteTimeMs"`
	InputRecords        int64             `json:"inputRecords"`
	OutputRecords       int64             `json:"outputRecords"`
	ShuffleReadRecords  int64             `json:"shuffleReadRecords"`
	ShuffleWriteRecords int64             `json:"shuffleWriteRecords"`
	ResultBytes         int64             `json:"resultBytes"`
	Cores               int               `json:"cores"`
	PRatio              float64           `json:"pRatio"`
	ClusterBusy         float64           `json:"clusterBusy"`
	Attempts            int               `json:"attempts"`
	Succeeded           int               `json:"succeeded"`
	Failed              int               `json:"failed"`
	Killed              int               `json:"killed"`
	FailedTaskTimeMs    int64             `json:"failedTaskTimeMs"`
	KilledTaskTimeMs    int64             `json:"killedTaskTimeMs"`
	FetchFailures       int               `json:"fetchFailures"`
	SpeculativeTasks    int               `json:"speculativeTasks"`
	SpeculativeWins     int               `json:"speculativeWins"`
	SpeculationWasteMs  int64             `json:"speculationWasteMs"`
	IsWrite             bool              `json:"isWrite"`
	SQLExecutionID      int64             `json:"sqlExecutionId"`
}

// ExecutorDetail is what the analyzer knows about an executor beyond the
// stable "executors" keys.
type ExecutorDetail struct {
	ID                  string  `json:"id"`
	LifetimeMs          int64   `json:"lifetimeMs"`
	Utilization         float64 `json:"utilization"`
	WastedCoreHours     float64 `json:"wastedCoreHours"`
	PeakJVMOffHeapBytes int64   `json:"peakJvmOffHeapBytes"`
	PeakJVMRSSBytes     int64   `json:"peakJvmRssBytes"`
	PeakOtherRSSBytes   int64   `json:"peakOtherRssBytes"`
	MajorGCCount        int64   `json:"majorGcCount"`
	FailedTasks         int     `json:"failedTasks"`
	OOMTaskErrors       int     `json:"oomTaskErrors"`
	LossCause           string  `json:"lossCause"`
	ExitCode            *int    `json:"exitCode"` // null when none was reported
	CausedByApp         bool    `json:"causedByApp"`
	LostTasks           int     `json:"lostTasks"`
}

// Interval is one stretch of the phase timeline.
type Interval struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Phase string `json:"phase"`
}

func stageDetail(s *analyze.Stage) StageDetail {
	return StageDetail{StageID: s.StageID, AttemptID: s.AttemptID, RunTimeMs: s.RunTimeMs, TaskTimeMs: s.TaskTimeMs,
		CPUTimeMs: s.CPUTimeMs, PeakExecutionMemory: s.PeakExecutionMemoryBytes,
		DeserializeMs: s.DeserializeMs, SerializeMs: s.SerializeMs, SchedulerDelayMs: s.SchedulerDelayMs,
		ShuffleWriteTimeMs: s.ShuffleWriteTimeNs / 1e6, InputRecords: s.InputRecords, OutputRecords: s.OutputRecords,
		ShuffleReadRecords: s.ShuffleReadRecords, ShuffleWriteRecords: s.ShuffleWriteRecords, ResultBytes: s.ResultBytes,
		Cores: s.CoresAvailable, PRatio: s.PRatio, ClusterBusy: s.ClusterBusy, Attempts: s.Attempts,
		Succeeded: s.Succeeded, Failed: s.Failed, Killed: s.Killed,
		FailedTaskTimeMs: s.FailedTaskMs, KilledTaskTimeMs: s.KilledTaskMs, FetchFailures: s.FetchFailures,
		SpeculativeTasks: s.SpeculativeTasks, SpeculativeWins: s.SpeculativeWins,
		SpeculationWasteMs: s.SpeculationWasteMs, IsWrite: s.IsWrite, SQLExecutionID: s.SQLExecutionID}
}

func executorDetail(e *analyze.Executor) ExecutorDetail {
	d := ExecutorDetail{ID: e.ID, LifetimeMs: e.LifetimeMs, Utilization: e.Utilization,
		WastedCoreHours: e.WastedCoreHours, PeakJVMOffHeapBytes: e.PeakJVMOffHeapBytes,
		PeakJVMRSSBytes: e.PeakJVMRSSBytes, PeakOtherRSSBytes: e.PeakOtherRSSBytes, MajorGCCount: e.MajorGCCount,
		FailedTasks: e.FailedTasks, OOMTaskErrors: e.OOMTaskErrors, LossCause: string(e.Loss.Cause),
		CausedByApp: e.Loss.CausedByApp, LostTasks: e.Loss.FailedTasks}
	if e.Loss.ExitCode != -1 {
		c := e.Loss.ExitCode
		d.ExitCode = &c
	}
	return d
}
