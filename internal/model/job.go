package model

// Job status values, as Spark's JobExecutionStatus.
const (
	JobRunning   = "RUNNING"
	JobSucceeded = "SUCCEEDED"
	JobFailed    = "FAILED"
	JobUnknown   = "UNKNOWN"
)

// Job is one Spark job and its task and stage counters.
type Job struct {
	ID             int
	Name           string
	Description    string
	HasDescription bool
	SubmissionTime int64
	CompletionTime int64
	StageIDs       []int
	JobGroup       string
	HasJobGroup    bool
	JobTags        []string
	Status         string
	ErrorMessage   string // a failed job's exception message; "" otherwise
	SQLExecutionID int64  // -1 when not part of a SQL execution
	// TraceParent and TraceState are the W3C trace context a caller gave
	// the job (a Spark Connect operation, an Airflow task): local properties
	// "traceparent"/"tracestate", a "traceparent=…" job tag, or the
	// session's spark.otel.traceparent/tracestate; "" when unset.
	TraceParent, TraceState string

	NumTasks         int
	ActiveTasks      int
	CompletedTasks   int
	SkippedTasks     int
	FailedTasks      int
	KilledTasks      int
	CompletedIndices IndexSet // stage id << 32 | task index
	ActiveStages     int
	CompletedStages  map[int]struct{}
	SkippedStages    map[int]struct{}
	FailedStages     int
	KilledSummary    map[string]int
}
