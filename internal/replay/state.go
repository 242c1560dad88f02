package replay

import (
	"strconv"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

// state applies events to one model.Attempt in log order, keeping the
// "live" bookkeeping Spark's AppStatusListener keeps (which jobs, stages,
// tasks and executors are still live), since it decides which counters a
// late event may still change.
type state struct {
	a           *model.Attempt
	cpusPerTask int
	// pack moves each finished task into its stage's TaskPack (a tailed
	// log's model, held for as long as the application runs).
	pack bool

	liveJobs map[int]*model.Job
	// endedJobs are the copies the live stages of an ended job count
	// into, by job id (see detachEndedJob).
	endedJobs  map[int]*model.Job
	liveStages map[stageKey]*liveStage
	liveTasks  map[int64]*model.Task
	liveExecs  map[string]*model.Executor
	deadExecs  map[string]*model.Executor
	profiles   map[int]*model.ResourceProfile
	rdds       map[int]*liveRDD
	streams    map[string]*model.StreamingQuery
	sqlm       sqlTracker
	// pendingSQL are the queries a job named before their start event,
	// by execution id (see jobSQL).
	pendingSQL map[int64]*model.SQLExecution
	// slab holds the tasks' metric values, a block for many tasks.
	slab model.MetricSlab
}

type stageKey struct{ id, attempt int }

// liveStage is a stage attempt with the listener's per-stage scratch data.
type liveStage struct {
	s                 *model.StageAttempt
	jobs              []*model.Job
	activePerExecutor map[string]int
	shadowOf          *model.StageAttempt // the finished run s stands in for
}

func newState(a *model.Attempt) *state {
	return &state{
		a: a, cpusPerTask: 1,
		liveJobs:   map[int]*model.Job{},
		endedJobs:  map[int]*model.Job{},
		liveStages: map[stageKey]*liveStage{},
		liveTasks:  map[int64]*model.Task{},
		liveExecs:  map[string]*model.Executor{},
		deadExecs:  map[string]*model.Executor{},
		profiles:   map[int]*model.ResourceProfile{},
		rdds:       map[int]*liveRDD{},
		streams:    map[string]*model.StreamingQuery{},
	}
}

// apply applies one event.
func (st *state) apply(ev sparkevent.Event) {
	switch e := ev.(type) {
	case *sparkevent.TaskEnd:
		st.taskEnd(e)
	case *sparkevent.TaskStart:
		st.taskStart(e)
	case sparkevent.TaskGettingResult:
		if t := st.liveTasks[e.Info.TaskID]; t != nil {
			t.GettingResultTime = e.Info.GettingResultTime
		}
	case *sparkevent.JobStart:
		st.jobStart(e)
	case sparkevent.JobEnd:
		st.jobEnd(e)
	case sparkevent.StageSubmitted:
		st.stageSubmitted(e)
	case sparkevent.StageCompleted:
		st.stageCompleted(e)
	case sparkevent.StageExecutorMetrics:
		st.stageExecutorMetrics(e.ExecutorID, e.StageID, e.StageAttempt, &e.Metrics, true)
	case *sparkevent.ExecutorMetricsUpdate:
		for i := range e.Updates {
			u := &e.Updates[i]
			st.stageExecutorMetrics(e.ExecutorID, u.StageID, u.StageAttempt, &u.Metrics, false)
		}
	case sparkevent.LogStart:
		st.a.SparkVersion = e.SparkVersion
	case sparkevent.AppStart:
		st.appStart(e)
	case sparkevent.AppEnd:
		st.appEnd(e)
	case sparkevent.Environment:
		st.a.Env = e.Env
		for _, p := range e.Env.SparkProperties {
			if p[0] == "spark.task.cpus" {
				if n, err := strconv.Atoi(p[1]); err == nil && n > 0 {
					st.cpusPerTask = n
				}
			}
		}
	case sparkevent.ResourceProfile:
		p := e.Profile
		sparkProfileOrder(&p)
		st.profiles[p.ID] = &p
		st.a.ResourceProfiles = append(st.a.ResourceProfiles, &p)
	case sparkevent.BlockManagerAdded:
		st.blockManagerAdded(e)
	case sparkevent.BlockManagerRemoved:
	case sparkevent.ExecutorAdded:
		st.executorAdded(e)
	case sparkevent.ExecutorRemoved:
		st.executorRemoved(e)
	case sparkevent.Exclusion:
		st.exclusion(e)
	case sparkevent.MiscProcess:
		st.miscProcess(e)
	case sparkevent.UnpersistRDD:
		st.unpersist(e.RDDID)
	case sparkevent.BlockUpdated:
		st.blockUpdated(e)
	case sparkevent.SQLStart, sparkevent.SQLEnd, sparkevent.SQLAdaptive, sparkevent.SQLDriverAccums, sparkevent.SQLAdaptiveMetrics:
		st.sql(ev)
	case sparkevent.QueryStarted, sparkevent.QueryProgress, sparkevent.QueryTerminated:
		st.streaming(ev)
	}
}

func (st *state) appStart(e sparkevent.AppStart) {
	a := st.a
	a.AppID, a.AppName, a.AttemptID, a.SparkUser = e.AppID, e.Name, e.AttemptID, e.User
	a.StartTime, a.LastUpdated = e.Time, e.Time
	if len(e.DriverLogs) > 0 {
		if d := st.liveExecs["driver"]; d != nil {
			d.Logs = sparkPairsOrder(e.DriverLogs)
			d.Attributes = sparkPairsOrder(e.DriverAttributes)
		}
	}
}

func (st *state) appEnd(e sparkevent.AppEnd) {
	a := st.a
	a.EndTime, a.Completed, a.ExitCode, a.LastUpdated = e.Time, true, e.ExitCode, e.Time
}

func (st *state) executor(id string, t int64) *model.Executor {
	if e := st.liveExecs[id]; e != nil {
		return e
	}
	e := st.a.AddExecutor(id, t)
	if e.RemoveTime != model.NoTime { // re-registered after removal: start afresh
		*e = model.Executor{ID: id, AddTime: t, RemoveTime: model.NoTime, IsActive: true, TotalOnHeap: -1,
			ExcludedInStages: map[int]struct{}{}}
	}
	delete(st.deadExecs, id)
	st.liveExecs[id] = e
	return e
}

func (st *state) executorAdded(ev sparkevent.ExecutorAdded) {
	e := st.executor(ev.ExecutorID, ev.Time)
	e.Host, e.IsActive, e.TotalCores = ev.Host, true, ev.Cores
	cpus := st.cpusPerTask
	if p := st.profiles[ev.ResourceProfileID]; p != nil {
		for _, r := range p.TaskResources {
			if r.Name == "cpus" && int(r.Amount) > 0 {
				cpus = int(r.Amount)
			}
		}
	}
	e.MaxTasks = ev.Cores / cpus
	e.Logs, e.Attributes, e.Resources = sparkPairsOrder(ev.Logs), sparkPairsOrder(ev.Attributes), sparkResourcesOrder(ev.Resources)
	e.ResourceProfileID = ev.ResourceProfileID
}

func (st *state) executorRemoved(ev sparkevent.ExecutorRemoved) {
	e := st.liveExecs[ev.ExecutorID]
	if e == nil {
		return
	}
	delete(st.liveExecs, ev.ExecutorID)
	e.IsActive, e.RemoveTime, e.RemoveReason = false, ev.Time, ev.Reason
	st.executorRemovedFromRDDs(e)
	if st.activeForLiveStages(e) {
		st.deadExecs[ev.ExecutorID] = e
	}
}

// activeForLiveStages tells whether a removed executor may still have run
// tasks of a live stage, so late stage metrics still reach it.
func (st *state) activeForLiveStages(e *model.Executor) bool {
	for _, ls := range st.liveStages {
		sub := ls.s.SubmissionTime
		if sub == model.NoTime {
			sub = 0
		}
		if sub < e.RemoveTime {
			return true
		}
	}
	return false
}

func (st *state) miscProcess(e sparkevent.MiscProcess) {
	var p *model.MiscProcess
	for _, q := range st.a.Misc {
		if q.ID == e.Process.ID {
			p = q
		}
	}
	if p == nil {
		p = &model.MiscProcess{ID: e.Process.ID, AddTime: e.Time, RemoveTime: model.NoTime}
		st.a.Misc = append(st.a.Misc, p)
	}
	p.Logs, p.HostPort, p.IsActive, p.TotalCores = e.Process.Logs, e.Process.HostPort, true, e.Process.TotalCores
}

func (st *state) blockManagerAdded(ev sparkevent.BlockManagerAdded) {
	e := st.executor(ev.ExecutorID, ev.Time)
	e.HostPort = ev.Host + ":" + strconv.Itoa(ev.Port)
	if ev.MaxOnHeap >= 0 {
		e.TotalOnHeap, e.TotalOffHeap = ev.MaxOnHeap, max(ev.MaxOffHeap, 0)
		e.UsedOnHeap, e.UsedOffHeap = 0, 0
	}
	e.IsActive = true
	e.MaxMemory = ev.MaxMem
}

func (st *state) exclusion(ev sparkevent.Exclusion) {
	if ev.ForStage {
		ls := st.liveStages[stageKey{ev.StageID, ev.StageAttempt}]
		// For a node, Spark matches the stage's executors by their
		// registered host and the executors' own lists by hostname.
		var ids, execs []string
		if ev.Node {
			for _, e := range st.a.Executors {
				if st.liveExecs[e.ID] == nil || e.ID == "driver" {
					continue
				}
				if e.Host == ev.Host {
					ids = append(ids, e.ID)
				}
				if e.Hostname() == ev.Host {
					execs = append(execs, e.ID)
				}
			}
		} else {
			ids = []string{ev.ExecutorID}
			execs = ids
		}
		if ls != nil {
			if ls.s.ExcludedExecutors == nil {
				ls.s.ExcludedExecutors = map[string]struct{}{}
			}
			for _, id := range ids {
				ls.s.ExcludedExecutors[id] = struct{}{}
				ls.s.ExecutorSummary(id).IsExcluded = true
			}
		}
		for _, id := range execs {
			if e := st.liveExecs[id]; e != nil {
				e.ExcludedInStages[ev.StageID] = struct{}{}
			}
		}
		return
	}
	if ev.Node {
		for _, e := range st.a.Executors {
			if st.liveExecs[e.ID] != nil && e.ID != "driver" && e.Hostname() == ev.Host {
				e.IsExcluded = ev.Excluded
			}
		}
		return
	}
	if e := st.liveExecs[ev.ExecutorID]; e != nil {
		e.IsExcluded = ev.Excluded
	}
}

func (st *state) stageExecutorMetrics(execID string, stageID, attempt int, m *model.ExecutorMetrics, dead bool) {
	e := st.liveExecs[execID]
	if e == nil && dead {
		e = st.deadExecs[execID]
	}
	if e != nil {
		e.Peak.UpdatePeaks(m)
	}
	if ls := st.liveStages[stageKey{stageID, attempt}]; ls != nil {
		ls.s.Peak.UpdatePeaks(m)
		ls.s.ExecutorSummary(execID).Peak.UpdatePeaks(m)
	}
}
