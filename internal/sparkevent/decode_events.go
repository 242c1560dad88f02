package sparkevent

import "github.com/sparkdx/sparkdx/internal/model"

// Event is one decoded SparkListener event. The concrete types below are
// the events replay understands; anything else decodes to Unknown.
type Event interface{ eventName() string }

// Unknown is an event replay does not interpret, kept only by name.
type Unknown struct{ Name string }

// Ignored is an event Spark defines that replay has no use for; it is
// neither applied nor counted as unknown.
type Ignored struct{ Name string }

// LogStart is SparkListenerLogStart.
type LogStart struct{ SparkVersion string }

// AppStart is SparkListenerApplicationStart.
type AppStart struct {
	Name, AppID, AttemptID, User string
	Time                         int64
	DriverLogs                   [][2]string
	DriverAttributes             [][2]string
}

// AppEnd is SparkListenerApplicationEnd.
type AppEnd struct {
	Time     int64
	ExitCode *int
}

// Environment is SparkListenerEnvironmentUpdate.
type Environment struct{ Env model.Environment }

// ResourceProfile is SparkListenerResourceProfileAdded.
type ResourceProfile struct{ Profile model.ResourceProfile }

// BlockManagerAdded is SparkListenerBlockManagerAdded.
type BlockManagerAdded struct {
	ExecutorID, Host      string
	Port                  int
	MaxMem                int64
	MaxOnHeap, MaxOffHeap int64 // -1 when absent
	Time                  int64
}

// BlockManagerRemoved is SparkListenerBlockManagerRemoved.
type BlockManagerRemoved struct {
	ExecutorID string
	Time       int64
}

// ExecutorAdded is SparkListenerExecutorAdded.
type ExecutorAdded struct {
	ExecutorID, Host  string
	Time              int64
	Cores             int
	Logs, Attributes  [][2]string
	Resources         []model.ResourceInfo
	ResourceProfileID int
}

// ExecutorRemoved is SparkListenerExecutorRemoved.
type ExecutorRemoved struct {
	ExecutorID, Reason string
	Time               int64
}

// Exclusion covers the executor/node (un)excluded and
// (un)blacklisted events, application-wide or for one stage.
type Exclusion struct {
	ExecutorID, Host      string // Host set for node events
	Node                  bool
	ForStage              bool
	Excluded              bool // false: unexcluded
	StageID, StageAttempt int
	Time                  int64
}

// MiscProcess is SparkListenerMiscellaneousProcessAdded.
type MiscProcess struct {
	Time    int64
	Process model.MiscProcess
}

// StageInfo is the "Stage Info" object of stage and job events.
type StageInfo struct {
	StageID, AttemptID   int
	Name, Details        string
	NumTasks             int
	RDDs                 []RDDInfo
	ParentIDs            []int
	SubmissionTime       int64 // model.NoTime when absent
	CompletionTime       int64
	FailureReason        string
	HasFailureReason     bool
	Accumulables         []model.Accumulable
	ResourceProfileID    int
	IsShufflePushEnabled bool
	ShuffleMergersCount  int
	// AccumulableCount is how many entries "Accumulables" held, the ones
	// Accumulables leaves out included: Spark's map of them is sized by all.
	AccumulableCount int
}

// RDDInfo is one entry of "RDD Info".
type RDDInfo struct {
	ID, NumPartitions                            int
	Name                                         string
	UseDisk, UseMemory, UseOffHeap, Deserialized bool
	Replication                                  int
}

// JobProps are the job properties replay uses.
type JobProps struct {
	JobGroup, Description, Pool string
	HasJobGroup, HasDescription bool
	SQLExecutionID              int64 // -1 when absent
	JobTags                     []string
	TraceParent, TraceState     string // W3C trace context a caller set as local properties
	// Orchestrator holds the local properties a job scheduler sets on every
	// job of a run (Databricks Jobs' spark.databricks.job.*), in the order
	// of orchestratorProps; nil when none is set.
	Orchestrator [][2]string
}

// JobStart is SparkListenerJobStart.
type JobStart struct {
	JobID    int
	Time     int64
	Stages   []StageInfo
	StageIDs []int
	Props    JobProps
}

// JobEnd is SparkListenerJobEnd.
type JobEnd struct {
	JobID     int
	Time      int64
	Succeeded bool
	// Error is a failed job's exception message ("Job aborted due to stage
	// failure: …", "Job 3 cancelled because SparkContext was shut down").
	Error string
}

// StageSubmitted is SparkListenerStageSubmitted.
type StageSubmitted struct {
	Info  StageInfo
	Props JobProps
}

// StageCompleted is SparkListenerStageCompleted.
type StageCompleted struct{ Info StageInfo }

// TaskInfo is the "Task Info" object.
type TaskInfo struct {
	TaskID                                    int64
	Index, Attempt, PartitionID               int
	LaunchTime, GettingResultTime, FinishTime int64
	ExecutorID, Host, Locality                string
	Speculative, Failed, Killed               bool
	Accumulables                              []model.Accumulable
	// SQLUpdates are the task's updates of SQL metrics, which the SQL
	// tab aggregates; they are not kept per task.
	SQLUpdates []AccumUpdate
}

// AccumUpdate is one accumulator's update by a task.
type AccumUpdate struct{ ID, Value int64 }

// TaskStart is SparkListenerTaskStart.
type TaskStart struct {
	StageID, StageAttempt int
	Info                  TaskInfo
}

// TaskGettingResult is SparkListenerTaskGettingResult.
type TaskGettingResult struct{ Info TaskInfo }

// TaskEndReason says how a task ended.
type TaskEndReason struct {
	Reason       string              // "Success", "ExceptionFailure", "TaskKilled", ...
	ErrorMessage string              // what Spark's UI shows as errorMessage
	KillReason   string              // TaskKilled reason, or the TaskCommitDenied text
	Loss         *model.ExecutorLoss // ExecutorLostFailure
	Fetch        *model.FetchFailure // FetchFailed
}

// TaskEnd is SparkListenerTaskEnd.
type TaskEnd struct {
	StageID, StageAttempt int
	TaskType              string
	Reason                TaskEndReason
	Info                  TaskInfo
	ExecMetrics           model.ExecutorMetrics
	// Metrics are zero when the event has no "Task Metrics" (or null), as
	// Spark's JsonProtocol reads it (TaskMetrics.empty): a task lost with
	// its executor still has metrics, all zeros.
	Metrics model.TaskMetrics
}

// StageExecutorMetrics is SparkListenerStageExecutorMetrics.
type StageExecutorMetrics struct {
	ExecutorID            string
	StageID, StageAttempt int
	Metrics               model.ExecutorMetrics
}

// StagePeak is one per-stage peak of a metrics update.
type StagePeak struct {
	StageID, StageAttempt int
	Metrics               model.ExecutorMetrics
}

// ExecutorMetricsUpdate is SparkListenerExecutorMetricsUpdate.
type ExecutorMetricsUpdate struct {
	ExecutorID string
	Updates    []StagePeak
}

// UnpersistRDD is SparkListenerUnpersistRDD.
type UnpersistRDD struct{ RDDID int }

// BlockUpdated is SparkListenerBlockUpdated.
type BlockUpdated struct {
	ExecutorID, Host, BlockID                    string
	Port                                         int
	UseDisk, UseMemory, UseOffHeap, Deserialized bool
	Replication                                  int
	MemSize, DiskSize                            int64
}

// SQLStart is SparkListenerSQLExecutionStart.
type SQLStart struct {
	ExecutionID, RootID  int64
	QueryID              string // Spark 4.1+
	ModifiedConfigs      [][2]string
	Description, Details string
	PhysicalPlan         string
	Plan                 *model.SQLPlanNode
	Time                 int64
}

// SQLEnd is SparkListenerSQLExecutionEnd.
type SQLEnd struct {
	ExecutionID     int64
	Time            int64
	ErrorMessage    string
	HasErrorMessage bool // Spark 3.4+ writes it, "" when the query succeeded
}

// SQLAdaptiveMetrics is SparkListenerSQLAdaptiveSQLMetricUpdates: the
// metrics of plan nodes adaptive execution added.
type SQLAdaptiveMetrics struct {
	ExecutionID int64
	Metrics     []model.SQLMetric
}

// SQLAdaptive is SparkListenerSQLAdaptiveExecutionUpdate.
type SQLAdaptive struct {
	ExecutionID  int64
	PhysicalPlan string
	Plan         *model.SQLPlanNode
}

// SQLDriverAccums is SparkListenerDriverAccumUpdates.
type SQLDriverAccums struct {
	ExecutionID int64
	Updates     [][2]int64
}

// QueryStarted is StreamingQueryListener$QueryStartedEvent.
type QueryStarted struct {
	ID, RunID, Name string
	Time            int64
}

// QueryProgress is StreamingQueryListener$QueryProgressEvent.
type QueryProgress struct {
	ID, RunID, Name string
	Progress        model.StreamingProgress
}

// QueryTerminated is StreamingQueryListener$QueryTerminatedEvent.
type QueryTerminated struct {
	ID, RunID, Exception string
}

func (Unknown) eventName() string               { return "unknown" }
func (Ignored) eventName() string               { return "ignored" }
func (LogStart) eventName() string              { return "SparkListenerLogStart" }
func (AppStart) eventName() string              { return "SparkListenerApplicationStart" }
func (AppEnd) eventName() string                { return "SparkListenerApplicationEnd" }
func (Environment) eventName() string           { return "SparkListenerEnvironmentUpdate" }
func (ResourceProfile) eventName() string       { return "SparkListenerResourceProfileAdded" }
func (BlockManagerAdded) eventName() string     { return "SparkListenerBlockManagerAdded" }
func (BlockManagerRemoved) eventName() string   { return "SparkListenerBlockManagerRemoved" }
func (ExecutorAdded) eventName() string         { return "SparkListenerExecutorAdded" }
func (ExecutorRemoved) eventName() string       { return "SparkListenerExecutorRemoved" }
func (Exclusion) eventName() string             { return "SparkListenerExecutorExcluded" }
func (MiscProcess) eventName() string           { return "SparkListenerMiscellaneousProcessAdded" }
func (JobStart) eventName() string              { return "SparkListenerJobStart" }
func (JobEnd) eventName() string                { return "SparkListenerJobEnd" }
func (StageSubmitted) eventName() string        { return "SparkListenerStageSubmitted" }
func (StageCompleted) eventName() string        { return "SparkListenerStageCompleted" }
func (*TaskStart) eventName() string            { return "SparkListenerTaskStart" }
func (TaskGettingResult) eventName() string     { return "SparkListenerTaskGettingResult" }
func (TaskEnd) eventName() string               { return "SparkListenerTaskEnd" }
func (StageExecutorMetrics) eventName() string  { return "SparkListenerStageExecutorMetrics" }
func (ExecutorMetricsUpdate) eventName() string { return "SparkListenerExecutorMetricsUpdate" }
func (UnpersistRDD) eventName() string          { return "SparkListenerUnpersistRDD" }
func (BlockUpdated) eventName() string          { return "SparkListenerBlockUpdated" }
func (SQLStart) eventName() string              { return "SparkListenerSQLExecutionStart" }
func (SQLEnd) eventName() string                { return "SparkListenerSQLExecutionEnd" }
func (SQLAdaptive) eventName() string           { return "SparkListenerSQLAdaptiveExecutionUpdate" }
func (SQLDriverAccums) eventName() string       { return "SparkListenerDriverAccumUpdates" }
func (SQLAdaptiveMetrics) eventName() string    { return "SparkListenerSQLAdaptiveSQLMetricUpdates" }
func (QueryStarted) eventName() string          { return "QueryStartedEvent" }
func (QueryProgress) eventName() string         { return "QueryProgressEvent" }
func (QueryTerminated) eventName() string       { return "QueryTerminatedEvent" }
