package model

// Task status values as the History Server shows them.
const (
	TaskRunning   = "RUNNING"
	TaskGetResult = "GET RESULT"
	TaskFailed    = "FAILED"
	TaskKilled    = "KILLED"
	TaskSuccess   = "SUCCESS"
)

// Task is one task attempt.
type Task struct {
	TaskID            int64
	Index             int
	Attempt           int
	PartitionID       int
	LaunchTime        int64
	GettingResultTime int64 // 0 when never fetched
	FinishTime        int64 // 0 while running
	ExecutorID        string
	Host              string
	Locality          string
	Speculative       bool
	Failed            bool
	Killed            bool
	Accumulables      []Accumulable
	// ErrorMessage is the error text a failed or killed attempt's end
	// event carries (an exception's stack trace, a kill reason); for an
	// ExecutorLostFailure or a FetchFailed it is empty and the event's
	// fields are kept in Loss or Fetch instead.
	ErrorMessage    string
	HasErrorMessage bool
	EndReason       string        // "Success", "ExceptionFailure", "ExecutorLostFailure", ...
	Loss            *ExecutorLoss // EndReason "ExecutorLostFailure"
	Fetch           *FetchFailure // EndReason "FetchFailed"

	HasMetrics bool
	Metrics    TaskMetrics
	// ExecMetrics are the executor's peaks while the task ran ("Task
	// Executor Metrics", Spark 3.0+); nil when absent or all zero, which
	// keeps tasks small on logs without them.
	ExecMetrics *ExecutorMetrics
}

// Status is the task status string Spark's TaskInfo.status gives.
func (t *Task) Status() string {
	switch {
	case t.FinishTime == 0 && t.GettingResultTime != 0:
		return TaskGetResult
	case t.FinishTime == 0:
		return TaskRunning
	case t.Failed:
		return TaskFailed
	case t.Killed:
		return TaskKilled
	default:
		return TaskSuccess
	}
}

// Successful is true for a finished task that neither failed nor was killed.
func (t *Task) Successful() bool { return t.FinishTime != 0 && !t.Failed && !t.Killed }

// Duration is Spark's TaskInfo.duration for a finished task, or the time
// running until now for a live one; never negative (Span).
func (t *Task) Duration(now int64) int64 {
	if t.FinishTime != 0 {
		return Span(t.LaunchTime, t.FinishTime)
	}
	if now <= 0 {
		return 0
	}
	return Span(t.LaunchTime, now)
}

// ExecutorLoss is an ExecutorLostFailure end reason: the task's executor
// was lost while it ran.
type ExecutorLoss struct {
	ExecutorID  string // "" when the event names none (logs before Spark 2.0)
	CausedByApp bool   // "Exit Caused By App": true unless the event says otherwise
	Reason      string // "Loss Reason", when HasReason
	HasReason   bool
}

// FetchFailure is a FetchFailed end reason: the task could not fetch a map
// output from the block manager named.
type FetchFailure struct {
	HasAddress       bool // a block manager is named (Spark writes null for a missing map output)
	ExecutorID, Host string
	Port             int64
	ShuffleID        int64
	MapIndex         int64 // when HasMapIndex (Spark 3.0+)
	HasMapIndex      bool
	MapID, ReduceID  int64
	Message          string // the fetch's own error, often a stack trace
}
