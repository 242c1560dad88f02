// Package model holds the Spark vocabulary sparkdx reasons about: an
// application and its attempts, executors, jobs, stages, tasks, storage, SQL
// executions and streaming progress, as Spark's AppStatusListener would hold
// them at the end of a replay. It does no I/O; package replay fills it.
package model

import "fmt"

// NoTime marks an epoch-millisecond time that Spark did not record.
const NoTime int64 = -1

// App is one Spark application with its attempts, newest first.
type App struct {
	ID       string
	Name     string
	Attempts []*Attempt
}

// Attempt is one run of an application: everything one event log tells.
type Attempt struct {
	AppID        string
	AppName      string
	AttemptID    string // "" when the application had no attempt ids
	SparkUser    string
	SparkVersion string
	StartTime    int64
	EndTime      int64 // NoTime while running
	LastUpdated  int64
	Completed    bool
	ExitCode     *int

	LogPath string // where the log was read from
	LogName string
	// Impossible counts the values the log recorded that cannot be: a
	// task that ended before it started, a sum past the int64 range
	// (held there, see SatAdd). The figures built on them are clamped.
	Impossible int64

	Env Environment
	// JobRunProperties are the orchestrator's job-level properties
	// (sparkevent.JobProps.Orchestrator) of the first job that had any:
	// the run the application belongs to when Env does not name it.
	JobRunProperties [][2]string
	ResourceProfiles []*ResourceProfile
	Executors        []*Executor // in order of first appearance
	Misc             []*MiscProcess
	Jobs             []*Job          // in order of submission
	Stages           []*StageAttempt // in order of first appearance
	RDDs             []*RDD
	SQL              []*SQLExecution
	Streaming        []*StreamingQuery

	execIndex  map[string]*Executor
	jobIndex   map[int]*Job
	stageIndex map[stageKey]*StageAttempt
	rddIndex   map[int]*RDD
	sqlIndex   map[int64]*SQLExecution
}

type stageKey struct{ id, attempt int }

// NewAttempt returns an empty attempt ready for replay.
func NewAttempt() *Attempt {
	return &Attempt{
		StartTime:   NoTime,
		EndTime:     NoTime,
		LastUpdated: NoTime,
		execIndex:   map[string]*Executor{},
		jobIndex:    map[int]*Job{},
		stageIndex:  map[stageKey]*StageAttempt{},
		rddIndex:    map[int]*RDD{},
		sqlIndex:    map[int64]*SQLExecution{},
	}
}

// Duration is EndTime-StartTime for a finished attempt (Span: never
// negative), else 0.
func (a *Attempt) Duration() int64 {
	if a.EndTime == NoTime || a.StartTime == NoTime || !a.Completed {
		return 0
	}
	return Span(a.StartTime, a.EndTime)
}

// Expanded returns the attempt with every stage's packed tasks back in its
// Tasks: a itself when none are packed, else a copy sharing everything
// but the stages (which it copies) with a. Models read by views and
// analyses are expanded; only a running application's replay packs.
func (a *Attempt) Expanded() (*Attempt, error) {
	var stages []*StageAttempt
	for i, s := range a.Stages {
		x, err := s.expanded()
		if err != nil {
			return nil, fmt.Errorf("model: %s: %w", a.AppID, err)
		}
		if x != s && stages == nil {
			stages = make([]*StageAttempt, len(a.Stages))
			copy(stages, a.Stages[:i])
		}
		if stages != nil {
			stages[i] = x
		}
	}
	if stages == nil {
		return a, nil
	}
	c := *a
	c.Stages = stages
	moved := make(map[*StageAttempt]*StageAttempt, len(stages))
	for i, s := range a.Stages {
		moved[s] = stages[i]
	}
	c.stageIndex = make(map[stageKey]*StageAttempt, len(a.stageIndex))
	for k, s := range a.stageIndex {
		if x := moved[s]; x != nil {
			s = x
		}
		c.stageIndex[k] = s
	}
	return &c, nil
}

// Executor returns the executor with id, or nil.
func (a *Attempt) Executor(id string) *Executor { return a.execIndex[id] }

// AddExecutor returns the executor with id, creating it when new.
func (a *Attempt) AddExecutor(id string, addTime int64) *Executor {
	if e := a.execIndex[id]; e != nil {
		return e
	}
	e := &Executor{ID: id, AddTime: addTime, RemoveTime: NoTime, IsActive: true,
		TotalOnHeap: -1, ExcludedInStages: map[int]struct{}{}}
	a.execIndex[id] = e
	a.Executors = append(a.Executors, e)
	return e
}

// Job returns the job with id, or nil.
func (a *Attempt) Job(id int) *Job { return a.jobIndex[id] }

// AddJob records a new job, replacing one with the same id.
func (a *Attempt) AddJob(j *Job) {
	if old := a.jobIndex[j.ID]; old != nil {
		*old = *j
		return
	}
	a.jobIndex[j.ID] = j
	a.Jobs = append(a.Jobs, j)
}

// Stage returns one stage attempt, or nil.
func (a *Attempt) Stage(id, attempt int) *StageAttempt {
	return a.stageIndex[stageKey{id, attempt}]
}

// StageOrNew returns one stage attempt, creating it when new.
func (a *Attempt) StageOrNew(id, attempt int) (s *StageAttempt, created bool) {
	k := stageKey{id, attempt}
	if s := a.stageIndex[k]; s != nil {
		return s, false
	}
	s = &StageAttempt{StageID: id, AttemptID: attempt, Status: StagePending,
		SubmissionTime: NoTime, CompletionTime: NoTime, FirstLaunchTime: NoTime,
		SchedulingPool: "default"}
	a.stageIndex[k] = s
	a.Stages = append(a.Stages, s)
	return s, true
}

// ReplaceStage puts s in place of the stored attempt with its ids.
func (a *Attempt) ReplaceStage(s *StageAttempt) {
	k := stageKey{s.StageID, s.AttemptID}
	old := a.stageIndex[k]
	a.stageIndex[k] = s
	for i, x := range a.Stages {
		if x == old {
			a.Stages[i] = s
			return
		}
	}
	a.Stages = append(a.Stages, s)
}

// StageAttempts returns every attempt of one stage, in attempt order.
func (a *Attempt) StageAttempts(id int) []*StageAttempt {
	var out []*StageAttempt
	for _, s := range a.Stages {
		if s.StageID == id {
			out = append(out, s)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].AttemptID < out[j-1].AttemptID; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// RDD returns the tracked RDD with id, or nil.
func (a *Attempt) RDD(id int) *RDD { return a.rddIndex[id] }

// AddRDD tracks a new RDD.
func (a *Attempt) AddRDD(r *RDD) {
	if a.rddIndex[r.ID] != nil {
		return
	}
	a.rddIndex[r.ID] = r
	a.RDDs = append(a.RDDs, r)
}

// RemoveRDD stops tracking an RDD (unpersisted).
func (a *Attempt) RemoveRDD(id int) {
	if a.rddIndex[id] == nil {
		return
	}
	delete(a.rddIndex, id)
	for i, r := range a.RDDs {
		if r.ID == id {
			a.RDDs = append(a.RDDs[:i], a.RDDs[i+1:]...)
			break
		}
	}
}

// SQLExecution returns the SQL execution with id, or nil.
func (a *Attempt) SQLExecution(id int64) *SQLExecution { return a.sqlIndex[id] }

// AddSQLExecution records a new SQL execution.
func (a *Attempt) AddSQLExecution(x *SQLExecution) {
	if a.sqlIndex[x.ID] != nil {
		return
	}
	a.sqlIndex[x.ID] = x
	a.SQL = append(a.SQL, x)
}

// Environment is what SparkListenerEnvironmentUpdate carries.
type Environment struct {
	JavaHome, JavaVersion, ScalaVersion string
	SparkProperties                     [][2]string
	HadoopProperties                    [][2]string
	SystemProperties                    [][2]string
	MetricsProperties                   [][2]string
	ClasspathEntries                    [][2]string
	Set                                 bool
}

// ExecutorResourceRequest is one executor resource of a resource profile.
type ExecutorResourceRequest struct {
	Name            string
	Amount          int64
	DiscoveryScript string
	Vendor          string
}

// TaskResourceRequest is one task resource of a resource profile.
type TaskResourceRequest struct {
	Name   string
	Amount float64
}

// ResourceProfile is a stage-level scheduling profile.
type ResourceProfile struct {
	ID                int
	ExecutorResources []ExecutorResourceRequest
	TaskResources     []TaskResourceRequest
}

// ResourceInfo is a resource (e.g. gpu) and the addresses an executor got.
type ResourceInfo struct {
	Name      string
	Addresses []string
}

// MiscProcess is a non-executor process Spark reports (e.g. the YARN AM).
type MiscProcess struct {
	ID         string
	HostPort   string
	IsActive   bool
	TotalCores int
	AddTime    int64
	RemoveTime int64
	Logs       [][2]string
}
