package sparkevent

import "github.com/sparkdx/sparkdx/internal/model"

// Event is one decoded SparkListener event. The concrete types below are
// the events replay understands; anything else decodes to EventUnknown.
type Event interface{ eventName() string }

// EventUnknown is an event replay does not interpret, kept only by name.
type EventUnknown struct{ Name string }

// EventIgnored is an event Spark defines that replay has no use for; it is
// neither applied nor counted as unknown.
type EventIgnored struct{ Name string }

// EventLogStart is SparkListenerLogStart.
type EventLogStart struct{ SparkVersion string }

// EventAppStart is SparkListenerApplicationStart.
type EventAppStart struct {
	Name, AppID, AttemptID, User string
	Time                         int64
	DriverLogs                   [][2]string
	DriverAttributes             [][2]string
}

// EventAppEnd is SparkListenerApplicationEnd.
type EventAppEnd struct {
	Time     int64
	ExitCode *int
}

// EventEnvironment is SparkListenerEnvironmentUpdate.
type EventEnvironment struct{ Env model.Environment }

// EventResourceProfile is SparkListenerResourceProfileAdded.
type EventResourceProfile struct{ Profile model.ResourceProfile }

// EventBlockManagerAdded is SparkListenerBlockManagerAdded.
type EventBlockManagerAdded struct {
	ExecutorID, Host      string
	Port                  int
	MaxMem                int64
	MaxOnHeap, MaxOffHeap int64 // -1 when absent
	Time                  int64
}

// EventBlockManagerRemoved is SparkListenerBlockManagerRemoved.
type EventBlockManagerRemoved struct {
	ExecutorID string
	Time       int64
}

// EventExecutorAdded is SparkListenerExecutorAdded.
type EventExecutorAdded struct {
	ExecutorID, Host  string
	Time              int64
	Cores             int
	Logs, Attributes  [][2]string
	Resources         []model.ResourceInfo
	ResourceProfileID int
}

// EventExecutorRemoved is SparkListenerExecutorRemoved.
type EventExecutorRemoved struct {
	ExecutorID, Reason string
	Time               int64
}

// EventExclusion covers the executor/node (un)excluded and
// (un)blacklisted events, application-wide or for one stage.
type EventExclusion struct {
	ExecutorID, Host      string // Host set for node events
	Node                  bool
	ForStage              bool
	Excluded              bool // false: unexcluded
	StageID, StageAttempt int
	Time                  int64
}

// EventMiscProcess is SparkListenerMiscellaneousProcessAdded.
type EventMiscProcess struct {
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
}

// EventJobStart is SparkListenerJobStart.
type EventJobStart struct {
	JobID    int
	Time     int64
	Stages   []StageInfo
	StageIDs []int
	Props    JobProps
}

// EventJobEnd is SparkListenerJobEnd.
type EventJobEnd struct {
	JobID     int
	Time      int64
	Succeeded bool
	// Error is a failed job's exception message ("Job aborted due to stage
	// failure: …", "Job 3 cancelled because SparkContext was shut down").
	Error string
}

// EventStageSubmitted is SparkListenerStageSubmitted.
type EventStageSubmitted struct {
	Info  StageInfo
	Props JobProps
}

// EventStageCompleted is SparkListenerStageCompleted.
type EventStageCompleted struct{ Info StageInfo }

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

// EventTaskStart is SparkListenerTaskStart.
type EventTaskStart struct {
	StageID, StageAttempt int
	Info                  TaskInfo
}

// EventTaskGettingResult is SparkListenerTaskGettingResult.
type EventTaskGettingResult struct{ Info TaskInfo }

// TaskEndReason says how a task ended.
type TaskEndReason struct {
	Reason       string              // "Success", "ExceptionFailure", "TaskKilled", ...
	ErrorMessage string              // what Spark's UI shows as errorMessage
	KillReason   string              // TaskKilled reason, or the TaskCommitDenied text
	Loss         *model.ExecutorLoss // ExecutorLostFailure
	Fetch        *model.FetchFailure // FetchFailed
}

// EventTaskEnd is SparkListenerTaskEnd.
type EventTaskEnd struct {
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

// EventStageExecutorMetrics is SparkListenerStageExecutorMetrics.
type EventStageExecutorMetrics struct {
	ExecutorID            string
	StageID, StageAttempt int
	Metrics               model.ExecutorMetrics
}

// StageExecutorMetrics is one per-stage peak of a metrics update.
type StageExecutorMetrics struct {
	StageID, StageAttempt int
	Metrics               model.ExecutorMetrics
}

// EventExecutorMetricsUpdate is SparkListenerExecutorMetricsUpdate.
type EventExecutorMetricsUpdate struct {
	ExecutorID string
	Updates    []StageExecutorMetrics
}

// EventUnpersistRDD is SparkListenerUnpersistRDD.
type EventUnpersistRDD struct{ RDDID int }

// EventBlockUpdated is SparkListenerBlockUpdated.
type EventBlockUpdated struct {
	ExecutorID, Host, BlockID                    string
	Port                                         int
	UseDisk, UseMemory, UseOffHeap, Deserialized bool
	Replication                                  int
	MemSize, DiskSize                            int64
}

// EventSQLStart is SparkListenerSQLExecutionStart.
type EventSQLStart struct {
	ExecutionID, RootID  int64
	QueryID              string // Spark 4.1+
	ModifiedConfigs      [][2]string
	Description, Details string
	PhysicalPlan         string
	Plan                 *model.SQLPlanNode
	Time                 int64
}

// EventSQLEnd is SparkListenerSQLExecutionEnd.
type EventSQLEnd struct {
	ExecutionID     int64
	Time            int64
	ErrorMessage    string
	HasErrorMessage bool // Spark 3.4+ writes it, "" when the query succeeded
}

// EventSQLAdaptiveMetrics is SparkListenerSQLAdaptiveSQLMetricUpdates: the
// metrics of plan nodes adaptive execution added.
type EventSQLAdaptiveMetrics struct {
	ExecutionID int64
	Metrics     []model.SQLMetric
}

// EventSQLAdaptive is SparkListenerSQLAdaptiveExecutionUpdate.
type EventSQLAdaptive struct {
	ExecutionID  int64
	PhysicalPlan string
	Plan         *model.SQLPlanNode
}

// EventSQLDriverAccums is SparkListenerDriverAccumUpdates.
type EventSQLDriverAccums struct {
	ExecutionID int64
	Updates     [][2]int64
}

// EventQueryStarted is StreamingQueryListener$QueryStartedEvent.
type EventQueryStarted struct {
	ID, RunID, Name string
	Time            int64
}

// EventQueryProgress is StreamingQueryListener$QueryProgressEvent.
type EventQueryProgress struct {
	ID, RunID, Name string
	Progress        model.StreamingProgress
}

// EventQueryTerminated is StreamingQueryListener$QueryTerminatedEvent.
type EventQueryTerminated struct {
	ID, RunID, Exception string
}

func (EventUnknown) eventName() string               { return "unknown" }
func (EventIgnored) eventName() string               { return "ignored" }
func (EventLogStart) eventName() string              { return "SparkListenerLogStart" }
func (EventAppStart) eventName() string              { return "SparkListenerApplicationStart" }
func (EventAppEnd) eventName() string                { return "SparkListenerApplicationEnd" }
func (EventEnvironment) eventName() string           { return "SparkListenerEnvironmentUpdate" }
func (EventResourceProfile) eventName() string       { return "SparkListenerResourceProfileAdded" }
func (EventBlockManagerAdded) eventName() string     { return "SparkListenerBlockManagerAdded" }
func (EventBlockManagerRemoved) eventName() string   { return "SparkListenerBlockManagerRemoved" }
func (EventExecutorAdded) eventName() string         { return "SparkListenerExecutorAdded" }
func (EventExecutorRemoved) eventName() string       { return "SparkListenerExecutorRemoved" }
func (EventExclusion) eventName() string             { return "SparkListenerExecutorExcluded" }
func (EventMiscProcess) eventName() string           { return "SparkListenerMiscellaneousProcessAdded" }
func (EventJobStart) eventName() string              { return "SparkListenerJobStart" }
func (EventJobEnd) eventName() string                { return "SparkListenerJobEnd" }
func (EventStageSubmitted) eventName() string        { return "SparkListenerStageSubmitted" }
func (EventStageCompleted) eventName() string        { return "SparkListenerStageCompleted" }
func (*EventTaskStart) eventName() string            { return "SparkListenerTaskStart" }
func (EventTaskGettingResult) eventName() string     { return "SparkListenerTaskGettingResult" }
func (EventTaskEnd) eventName() string               { return "SparkListenerTaskEnd" }
func (EventStageExecutorMetrics) eventName() string  { return "SparkListenerStageExecutorMetrics" }
func (EventExecutorMetricsUpdate) eventName() string { return "SparkListenerExecutorMetricsUpdate" }
func (EventUnpersistRDD) eventName() string          { return "SparkListenerUnpersistRDD" }
func (EventBlockUpdated) eventName() string          { return "SparkListenerBlockUpdated" }
func (EventSQLStart) eventName() string              { return "SparkListenerSQLExecutionStart" }
func (EventSQLEnd) eventName() string                { return "SparkListenerSQLExecutionEnd" }
func (EventSQLAdaptive) eventName() string           { return "SparkListenerSQLAdaptiveExecutionUpdate" }
func (EventSQLDriverAccums) eventName() string       { return "SparkListenerDriverAccumUpdates" }
func (EventSQLAdaptiveMetrics) eventName() string    { return "SparkListenerSQLAdaptiveSQLMetricUpdates" }
func (EventQueryStarted) eventName() string          { return "QueryStartedEvent" }
func (EventQueryProgress) eventName() string         { return "QueryProgressEvent" }
func (EventQueryTerminated) eventName() string       { return "QueryTerminatedEvent" }
