package model

import "sort"

// Stage status values, as Spark's StageStatus.
const (
	StageActive   = "ACTIVE"
	StageComplete = "COMPLETE"
	StageFailed   = "FAILED"
	StagePending  = "PENDING"
	StageSkipped  = "SKIPPED"
)

// Accumulable is a named accumulator value on a stage or task.
type Accumulable struct {
	ID        int64
	Name      string
	Update    string
	HasUpdate bool
	Value     string
	Internal  bool
	SQL       bool // metadata "sql": shown on SQL pages, not on stages
}

// ExecutorStageSummary is one executor's share of one stage attempt.
type ExecutorStageSummary struct {
	ExecutorID     string
	TaskTime       int64
	SucceededTasks int
	FailedTasks    int
	KilledTasks    int
	IsExcluded     bool
	Metrics        TaskMetrics
	Peak           ExecutorMetrics
}

// StageAttempt is one attempt of one stage, with its tasks.
type StageAttempt struct {
	StageID           int
	AttemptID         int
	Name              string
	Details           string
	NumTasks          int
	RDDIDs            []int
	ParentIDs         []int
	ResourceProfileID int
	SubmissionTime    int64
	CompletionTime    int64
	FailureReason     string
	HasFailureReason  bool
	Status            string
	JobIDs            []int
	Description       string
	HasDescription    bool
	SchedulingPool    string

	IsShufflePushEnabled bool
	ShuffleMergersCount  int

	ActiveTasks      int
	CompletedTasks   int
	FailedTasks      int
	KilledTasks      int
	CompletedIndices map[int]struct{}
	KilledSummary    map[string]int
	FirstLaunchTime  int64
	LocalitySummary  map[string]int64

	Metrics           TaskMetrics
	Peak              ExecutorMetrics
	Accumulables      []Accumulable
	ExecSummary       []*ExecutorStageSummary
	ExcludedExecutors map[string]struct{}

	Tasks     []*Task // in task-id order
	taskIndex map[int64]*Task

	// HistoryView, when set, is what Spark's History Server shows for this
	// attempt instead: a later job listed the finished attempt again and
	// the listener replaced it with a skipped, empty copy. The attempt
	// itself keeps the data of the run.
	HistoryView *StageAttempt
}

// Task returns the task with id, or nil.
func (s *StageAttempt) Task(id int64) *Task { return s.taskIndex[id] }

// AddTask stores a task, keeping Tasks in task-id order.
func (s *StageAttempt) AddTask(t *Task) {
	if s.taskIndex == nil {
		s.taskIndex = map[int64]*Task{}
	}
	s.taskIndex[t.TaskID] = t
	n := len(s.Tasks)
	if n == 0 || s.Tasks[n-1].TaskID < t.TaskID {
		s.Tasks = append(s.Tasks, t)
		return
	}
	i := sort.Search(n, func(i int) bool { return s.Tasks[i].TaskID >= t.TaskID })
	s.Tasks = append(s.Tasks, nil)
	copy(s.Tasks[i+1:], s.Tasks[i:])
	s.Tasks[i] = t
}

// ExecutorSummary returns the per-executor summary, creating it when new.
func (s *StageAttempt) ExecutorSummary(id string) *ExecutorStageSummary {
	for _, e := range s.ExecSummary {
		if e.ExecutorID == id {
			return e
		}
	}
	e := &ExecutorStageSummary{ExecutorID: id}
	s.ExecSummary = append(s.ExecSummary, e)
	return e
}
