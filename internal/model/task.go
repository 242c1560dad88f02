package model

// Task status values as the History Server shows them.
const (
	TaskRunning   = "RUNNING"
	TaskGetResult = "GET RESULT"
	TaskFailed    = "FAILED"
	TaskKilled    = "KILLED"
	TaskSuccess   = "SUCCESS"
)

// Task is one task attempt. A one-shot replay keeps every task of the log
// in memory, so its layout is kept small (152 bytes, against 496 with the
// metrics inline): the metrics are held sparse (most of the 36 are zero in
// a task), the parts most tasks lack (accumulables, an error text, a failure,
// the executor's peaks) sit behind one pointer, and Spark's Int fields are
// int32 as in Spark.
type Task struct {
	TaskID            int64
	LaunchTime        int64
	GettingResultTime int64 // 0 when never fetched
	FinishTime        int64 // 0 while running
	ExecutorID        string
	Host              string
	Locality          string
	EndReason         string // "Success", "ExceptionFailure", "ExecutorLostFailure", ...
	Index             int32
	Attempt           int32
	PartitionID       int32
	Speculative       bool
	Failed            bool
	Killed            bool
	HasMetrics        bool
	metrics           sparseMetrics
	// Extra holds what few tasks have; nil when the task has none of it.
	Extra *TaskExtra
}

// TaskExtra holds the parts of a task most tasks lack.
type TaskExtra struct {
	Accumulables []Accumulable
	// ErrorMessage is the error text a failed or killed attempt's end
	// event carries (an exception's stack trace, a kill reason); for an
	// ExecutorLostFailure or a FetchFailed it is empty and the event's
	// fields are kept in Loss or Fetch instead.
	ErrorMessage    string
	HasErrorMessage bool
	Loss            *ExecutorLoss // EndReason "ExecutorLostFailure"
	Fetch           *FetchFailure // EndReason "FetchFailed"
	// ExecMetrics are the executor's peaks while the task ran ("Task
	// Executor Metrics", Spark 3.0+); nil when absent or all zero.
	ExecMetrics *ExecutorMetrics
}

// extra returns t.Extra, creating it.
func (t *Task) extra() *TaskExtra {
	if t.Extra == nil {
		t.Extra = &TaskExtra{}
	}
	return t.Extra
}

// Accumulables are the task's accumulator updates ("Accumulables" of its
// Task Info), nil when none.
func (t *Task) Accumulables() []Accumulable {
	if t.Extra == nil {
		return nil
	}
	return t.Extra.Accumulables
}

// SetAccumulables replaces the task's accumulator updates.
func (t *Task) SetAccumulables(accs []Accumulable) {
	if len(accs) == 0 && t.Extra == nil {
		return
	}
	t.extra().Accumulables = accs
}

// ErrorMessage is the error text of a failed or killed attempt
// (TaskExtra.ErrorMessage).
func (t *Task) ErrorMessage() string {
	if t.Extra == nil {
		return ""
	}
	return t.Extra.ErrorMessage
}

// HasErrorMessage tells whether the task's end event carried an error text.
func (t *Task) HasErrorMessage() bool { return t.Extra != nil && t.Extra.HasErrorMessage }

// SetErrorMessage records a failed or killed attempt's error text.
func (t *Task) SetErrorMessage(msg string) {
	x := t.extra()
	x.ErrorMessage, x.HasErrorMessage = msg, true
}

// Loss is the ExecutorLostFailure end reason's details, or nil.
func (t *Task) Loss() *ExecutorLoss {
	if t.Extra == nil {
		return nil
	}
	return t.Extra.Loss
}

// Fetch is the FetchFailed end reason's details, or nil.
func (t *Task) Fetch() *FetchFailure {
	if t.Extra == nil {
		return nil
	}
	return t.Extra.Fetch
}

// SetFailure records an end reason's details; nil ones are not stored.
func (t *Task) SetFailure(loss *ExecutorLoss, fetch *FetchFailure) {
	if loss == nil && fetch == nil && t.Extra == nil {
		return
	}
	x := t.extra()
	x.Loss, x.Fetch = loss, fetch
}

// ExecMetrics are the executor's peaks while the task ran, or nil.
func (t *Task) ExecMetrics() *ExecutorMetrics {
	if t.Extra == nil {
		return nil
	}
	return t.Extra.ExecMetrics
}

// SetExecMetrics records the executor's peaks while the task ran.
func (t *Task) SetExecMetrics(m *ExecutorMetrics) {
	if m == nil && t.Extra == nil {
		return
	}
	t.extra().ExecMetrics = m
}

// Metrics returns the task's metrics (all zero when !HasMetrics).
func (t *Task) Metrics() TaskMetrics {
	var m TaskMetrics
	t.metrics.expand(&m)
	return m
}

// SetMetrics stores the task's metrics and sets HasMetrics.
func (t *Task) SetMetrics(m *TaskMetrics) { t.SetMetricsIn(m, nil) }

// SetMetricsIn is SetMetrics with the values taken from slab.
func (t *Task) SetMetricsIn(m *TaskMetrics, slab *MetricSlab) {
	t.metrics = packSparse(m, slab)
	t.HasMetrics = true
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
