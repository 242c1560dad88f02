package model

import (
	"fmt"
	"slices"
	"sort"
)

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
	CompletedIndices IndexSet
	KilledSummary    map[string]int
	FirstLaunchTime  int64
	LocalitySummary  map[string]int64

	Metrics           TaskMetrics
	Peak              ExecutorMetrics
	Accumulables      []Accumulable
	ExecSummary       []*ExecutorStageSummary
	ExcludedExecutors map[string]struct{}

	// Tasks are in task-id order. No map indexes them: one cost 50 bytes a
	// task, a third of a Task, and a lookup by id is a binary search.
	Tasks []*Task
	// Packed holds finished tasks taken out of Tasks by PackTask (a
	// running application's model keeps them so); Attempt.Expanded puts
	// them back.
	Packed *TaskPack

	// HistoryView, when set, is what Spark's History Server shows for this
	// attempt instead: a later job listed the finished attempt again and
	// the listener replaced it with a skipped, empty copy. The attempt
	// itself keeps the data of the run.
	HistoryView *StageAttempt
}

// Task returns the task with id (the last added of that id), or nil.
func (s *StageAttempt) Task(id int64) *Task {
	i := sort.Search(len(s.Tasks), func(i int) bool { return s.Tasks[i].TaskID >= id })
	if i < len(s.Tasks) && s.Tasks[i].TaskID == id {
		return s.Tasks[i]
	}
	return nil
}

// AddTask stores a task, keeping Tasks in task-id order (before any of the
// same id).
func (s *StageAttempt) AddTask(t *Task) {
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

// TaskCount is the number of tasks stored, packed or not.
func (s *StageAttempt) TaskCount() int { return len(s.Tasks) + s.Packed.Len() }

// PackTask moves a finished task from Tasks into Packed.
func (s *StageAttempt) PackTask(t *Task) {
	i := sort.Search(len(s.Tasks), func(i int) bool { return s.Tasks[i].TaskID >= t.TaskID })
	for ; i < len(s.Tasks) && s.Tasks[i].TaskID == t.TaskID; i++ {
		if s.Tasks[i] == t {
			// slices.Delete clears the slot it vacates: a copy of the
			// last pointer left past the length kept a packed task alive.
			s.Tasks = slices.Delete(s.Tasks, i, i+1)
			if len(s.Tasks) == 0 {
				// Every task is packed (the stage ended, or between
				// waves): let the emptied array go.
				s.Tasks = nil
			}
			if s.Packed == nil {
				s.Packed = &TaskPack{}
			}
			s.Packed.Add(t)
			return
		}
	}
}

// expanded returns a copy of s with its packed tasks back in Tasks, in
// task-id order, or s itself when none are packed.
func (s *StageAttempt) expanded() (*StageAttempt, error) {
	var hv *StageAttempt
	if s.HistoryView != nil {
		var err error
		if hv, err = s.HistoryView.expanded(); err != nil {
			return nil, err
		}
	}
	if s.Packed.Len() == 0 && hv == s.HistoryView {
		return s, nil
	}
	c := *s
	c.HistoryView = hv
	if s.Packed.Len() > 0 {
		packed, err := s.Packed.Unpack()
		if err != nil {
			return nil, fmt.Errorf("stage %d.%d: %w", s.StageID, s.AttemptID, err)
		}
		c.Tasks = append(packed, s.Tasks...)
		sort.SliceStable(c.Tasks, func(i, j int) bool { return c.Tasks[i].TaskID < c.Tasks[j].TaskID })
		c.Packed = nil
	}
	return &c, nil
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
