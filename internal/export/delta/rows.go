package delta

import (
	"time"
)

// The sparkdx tables. Every row carries app_id and attempt_id so tables
// join on them; times are timestamps (µs, UTC), durations end in _ms,
// sizes in _bytes, as in the JSON report. docs/delta-tables.md documents
// each column.

// AppRow is one application attempt (table "apps").
type AppRow struct {
	AppID           string            `parquet:"app_id"`
	AttemptID       string            `parquet:"attempt_id"`
	Name            string            `parquet:"name"`
	User            string            `parquet:"user"`
	SparkVersion    string            `parquet:"spark_version"`
	Master          string            `parquet:"master"`
	StartTime       *time.Time        `parquet:"start_time,optional,timestamp(microsecond)"`
	EndTime         *time.Time        `parquet:"end_time,optional,timestamp(microsecond)"`
	DurationMs      int64             `parquet:"duration_ms"`
	Completed       bool              `parquet:"completed"`
	ResourceWaitMs  *int64            `parquet:"resource_wait_ms,optional"`
	ComputeMs       *int64            `parquet:"compute_ms,optional"`
	OutputWriteMs   *int64            `parquet:"output_write_ms,optional"`
	DriverOnlyMs    *int64            `parquet:"driver_only_ms,optional"`
	Findings        int64             `parquet:"findings"`
	LogPath         string            `parquet:"log_path"`
	LogCodec        string            `parquet:"log_codec"`
	LogBytes        int64             `parquet:"log_bytes"`
	LogEvents       int64             `parquet:"log_events"`
	LogBadLines     int64             `parquet:"log_bad_lines"`
	SparkProperties map[string]string `parquet:"spark_properties"`
	WrittenAt       time.Time         `parquet:"written_at,timestamp(microsecond)"`
	// CoreHours and MemoryGBHours are the attempt's cost, executors and
	// driver (the total sparkdx analyze prints; docs/cost.md); null in
	// rows of reports without one. Added after the first release:
	// nullable, so an older table gains them by ADD COLUMNS.
	CoreHours     *float64 `parquet:"core_hours,optional"`
	MemoryGBHours *float64 `parquet:"memory_gb_hours,optional"`
}

// JobRow is one job (table "jobs").
type JobRow struct {
	AppID          string     `parquet:"app_id"`
	AttemptID      string     `parquet:"attempt_id"`
	JobID          int64      `parquet:"job_id"`
	Name           string     `parquet:"name"`
	Description    string     `parquet:"description"`
	JobGroup       string     `parquet:"job_group"`
	Status         string     `parquet:"status"`
	SubmissionTime *time.Time `parquet:"submission_time,optional,timestamp(microsecond)"`
	CompletionTime *time.Time `parquet:"completion_time,optional,timestamp(microsecond)"`
	DurationMs     *int64     `parquet:"duration_ms,optional"`
	StageIDs       []int64    `parquet:"stage_ids,list"`
	SQLExecutionID *int64     `parquet:"sql_execution_id,optional"`
	NumTasks       int64      `parquet:"num_tasks"`
	CompletedTasks int64      `parquet:"completed_tasks"`
	SkippedTasks   int64      `parquet:"skipped_tasks"`
	FailedTasks    int64      `parquet:"failed_tasks"`
	KilledTasks    int64      `parquet:"killed_tasks"`
}

// StageRow is one stage attempt (table "stages").
type StageRow struct {
	AppID                     string     `parquet:"app_id"`
	AttemptID                 string     `parquet:"attempt_id"`
	StageID                   int64      `parquet:"stage_id"`
	StageAttemptID            int64      `parquet:"stage_attempt_id"`
	Name                      string     `parquet:"name"`
	Status                    string     `parquet:"status"`
	NumTasks                  int64      `parquet:"num_tasks"`
	SubmissionTime            *time.Time `parquet:"submission_time,optional,timestamp(microsecond)"`
	CompletionTime            *time.Time `parquet:"completion_time,optional,timestamp(microsecond)"`
	DurationMs                int64      `parquet:"duration_ms"`
	TaskDurationP50Ms         int64      `parquet:"task_duration_p50_ms"`
	TaskDurationP95Ms         int64      `parquet:"task_duration_p95_ms"`
	TaskDurationMaxMs         int64      `parquet:"task_duration_max_ms"`
	GCTimeMs                  int64      `parquet:"gc_time_ms"`
	InputBytes                int64      `parquet:"input_bytes"`
	OutputBytes               int64      `parquet:"output_bytes"`
	ShuffleReadBytes          int64      `parquet:"shuffle_read_bytes"`
	ShuffleWriteBytes         int64      `parquet:"shuffle_write_bytes"`
	FetchWaitMs               int64      `parquet:"fetch_wait_ms"`
	MemorySpilledBytes        int64      `parquet:"memory_spilled_bytes"`
	DiskSpilledBytes          int64      `parquet:"disk_spilled_bytes"`
	SkewDurationMaxOverMedian float64    `parquet:"skew_duration_max_over_median"`
	SkewBytesMaxOverMedian    float64    `parquet:"skew_bytes_max_over_median"`
}

// ExecutorRow is one executor or the driver (table "executors").
type ExecutorRow struct {
	AppID              string     `parquet:"app_id"`
	AttemptID          string     `parquet:"attempt_id"`
	ExecutorID         string     `parquet:"executor_id"`
	Host               string     `parquet:"host"`
	Cores              int64      `parquet:"cores"`
	AddedTime          *time.Time `parquet:"added_time,optional,timestamp(microsecond)"`
	RemovedTime        *time.Time `parquet:"removed_time,optional,timestamp(microsecond)"`
	RemovedReason      string     `parquet:"removed_reason"`
	PeakJVMHeapBytes   int64      `parquet:"peak_jvm_heap_bytes"`
	PeakPythonRSSBytes int64      `parquet:"peak_python_rss_bytes"`
	TaskTimeMs         int64      `parquet:"task_time_ms"`
	GCTimeMs           int64      `parquet:"gc_time_ms"`
}

// FindingRow is one diagnosis finding (table "findings"). Evidence is the
// finding's evidence object as JSON text.
type FindingRow struct {
	AppID       string   `parquet:"app_id"`
	AttemptID   string   `parquet:"attempt_id"`
	Rule        string   `parquet:"rule"`
	Severity    string   `parquet:"severity"`
	Title       string   `parquet:"title"`
	Detail      string   `parquet:"detail"`
	StageIDs    []int64  `parquet:"stage_ids,list"`
	ExecutorIDs []string `parquet:"executor_ids,list"`
	Evidence    string   `parquet:"evidence"`
	Recipe      string   `parquet:"recipe"`
}

// SampleRow is one metric data point (table "samples", partitioned by
// date): one row per metric, time and attribute set, so any OTLP metric
// fits. Well-known attributes have their own columns; the rest are in
// Attributes.
type SampleRow struct {
	Date       string            `parquet:"date"` // partition: UTC day of Time, 2006-01-02
	Time       time.Time         `parquet:"time,timestamp(microsecond)"`
	Metric     string            `parquet:"metric"`
	Value      float64           `parquet:"value"`
	Unit       string            `parquet:"unit"`
	Host       string            `parquet:"host"`
	AppID      string            `parquet:"app_id"`
	ExecutorID string            `parquet:"executor_id"`
	Role       string            `parquet:"role"`
	Service    string            `parquet:"service"`
	Attributes map[string]string `parquet:"attributes"`
}

// SampleDate is the partition value of a sample taken at t.
func SampleDate(t time.Time) string { return t.UTC().Format("2006-01-02") }
