package replay

import (
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

func newTask(info *sparkevent.TaskInfo) *model.Task {
	t := &model.Task{}
	setTaskInfo(t, info)
	return t
}

// setTaskInfo copies "Task Info" into a task, as Spark replaces a live
// task's sparkevent.TaskInfo on each event.
func setTaskInfo(t *model.Task, info *sparkevent.TaskInfo) {
	// Spark's index, attempt and partition are Ints: a log cannot hold more.
	t.TaskID, t.Index, t.Attempt, t.PartitionID = info.TaskID, int32(info.Index), int32(info.Attempt), int32(info.PartitionID)
	t.LaunchTime, t.GettingResultTime, t.FinishTime = info.LaunchTime, info.GettingResultTime, info.FinishTime
	t.ExecutorID, t.Host, t.Locality = info.ExecutorID, info.Host, info.Locality
	t.Speculative, t.Failed, t.Killed = info.Speculative, info.Failed, info.Killed
	t.SetAccumulables(info.Accumulables)
}

func (st *state) taskStart(e *sparkevent.TaskStart) {
	t := newTask(&e.Info)
	st.liveTasks[t.TaskID] = t
	// Spark keeps a task of a stage it never heard of, but no REST view
	// reaches it; such a task only counts for its executor here.
	if s := st.a.Stage(e.StageID, e.StageAttempt); s != nil {
		s.AddTask(t)
	}
	if ls := st.liveStages[stageKey{e.StageID, e.StageAttempt}]; ls != nil {
		s := ls.s
		s.ActiveTasks++
		if s.FirstLaunchTime == model.NoTime || e.Info.LaunchTime < s.FirstLaunchTime {
			s.FirstLaunchTime = e.Info.LaunchTime
		}
		if s.LocalitySummary == nil {
			s.LocalitySummary = map[string]int64{}
		}
		s.LocalitySummary[e.Info.Locality]++
		ls.activePerExecutor[e.Info.ExecutorID]++
		for _, j := range ls.jobs {
			j.ActiveTasks++
		}
	}
	if ex := st.liveExecs[e.Info.ExecutorID]; ex != nil {
		ex.ActiveTasks++
		ex.TotalTasks++
	}
}

func (st *state) taskEnd(e *sparkevent.TaskEnd) {
	st.sqlm.taskEnd(e)
	var delta *model.TaskMetrics
	if t := st.liveTasks[e.Info.TaskID]; t != nil {
		delete(st.liveTasks, e.Info.TaskID)
		setTaskInfo(t, &e.Info)
		if e.Reason.Reason != "Success" {
			t.SetErrorMessage(e.Reason.ErrorMessage)
		}
		t.EndReason = e.Reason.Reason
		t.SetFailure(e.Reason.Loss, e.Reason.Fetch)
		t.SetMetricsIn(&e.Metrics, &st.slab)
		delta = &e.Metrics
		if !e.ExecMetrics.IsZero() {
			m := e.ExecMetrics
			t.SetExecMetrics(&m)
		}
		if st.pack {
			st.packTask(t, e.StageID, e.StageAttempt)
		}
	}
	// A Resubmitted end has no matching start (SPARK-41187): it does not
	// make a task inactive.
	completed, failed, killed, active := 0, 0, 0, 1
	switch e.Reason.Reason {
	case "Success":
		completed = 1
	case "TaskKilled", "TaskCommitDenied":
		killed = 1
	case "Resubmitted":
		failed, active = 1, 0
	default:
		failed = 1
	}
	// A Resubmitted end repeats a successful task's info: Spark 4 counts
	// it failed but adds its time to no executor total (3.5 added it
	// again to the stage's executor summary and the executor).
	duration := int64(0)
	if e.Info.FinishTime != 0 && e.Reason.Reason != "Resubmitted" {
		duration = model.Span(e.Info.LaunchTime, e.Info.FinishTime)
	}
	if e.Info.LaunchTime < 0 || e.Info.FinishTime < 0 || e.Info.FinishTime != 0 && e.Info.FinishTime < e.Info.LaunchTime {
		st.a.Impossible++ // ended before it started: counted, its duration 0
	}
	k := stageKey{e.StageID, e.StageAttempt}
	if ls := st.liveStages[k]; ls != nil {
		s := ls.s
		if delta != nil {
			st.a.Impossible += int64(s.Metrics.Add(delta, 1))
		}
		s.ActiveTasks -= active
		s.CompletedTasks += completed
		if completed > 0 {
			s.CompletedIndices.Add(int64(e.Info.Index))
		}
		s.FailedTasks += failed
		s.KilledTasks += killed
		if killed > 0 {
			if s.KilledSummary == nil {
				s.KilledSummary = map[string]int{}
			}
			s.KilledSummary[e.Reason.KillReason]++
		}
		ls.activePerExecutor[e.Info.ExecutorID] -= active
		s.Peak.UpdatePeaks(&e.ExecMetrics)
		es := s.ExecutorSummary(e.Info.ExecutorID)
		es.Peak.UpdatePeaks(&e.ExecMetrics)
		remove := s.ActiveTasks == 0 && (s.Status == model.StageComplete || s.Status == model.StageFailed)
		idx := int64(e.StageID)<<32 | int64(e.Info.Index)
		for _, j := range ls.jobs {
			j.ActiveTasks -= active
			j.CompletedTasks += completed
			if completed > 0 {
				j.CompletedIndices.Add(idx)
			}
			j.FailedTasks += failed
			j.KilledTasks += killed
			if killed > 0 {
				j.KilledSummary[e.Reason.KillReason]++
			}
		}
		es.TaskTime = model.SatAdd(es.TaskTime, duration)
		es.SucceededTasks += completed
		es.FailedTasks += failed
		es.KilledTasks += killed
		if delta != nil {
			st.a.Impossible += int64(es.Metrics.Add(delta, 1))
		}
		if remove {
			st.publishJobs(ls)
			delete(st.liveStages, k)
		}
	}
	if ex := st.liveExecs[e.Info.ExecutorID]; ex != nil {
		ex.ActiveTasks -= active
		ex.CompletedTasks += completed
		ex.FailedTasks += failed
		ex.TotalDuration = model.SatAdd(ex.TotalDuration, duration)
		ex.Peak.UpdatePeaks(&e.ExecMetrics)
		if e.Reason.Reason != "Resubmitted" {
			m := &e.Metrics
			ex.TotalGCTime = model.SatAdd(ex.TotalGCTime, m.JvmGcTime)
			ex.TotalInputBytes = model.SatAdd(ex.TotalInputBytes, m.InputBytesRead)
			ex.TotalShuffleRead = model.SatAdd(ex.TotalShuffleRead, m.ShuffleReadBytes())
			ex.TotalShuffleWrite = model.SatAdd(ex.TotalShuffleWrite, m.ShuffleWrite.BytesWritten)
		}
	}
}

// packTask moves a finished task into the packs of the stage attempts
// holding it: the stored attempt and the History Server's view of it
// (which holds its own copy of the tasks; see newShadow). A task is
// never changed after its end, so the packed form is final.
func (st *state) packTask(t *model.Task, stageID, attempt int) {
	s := st.a.Stage(stageID, attempt)
	if s == nil {
		return
	}
	s.PackTask(t)
	if s.HistoryView != nil {
		s.HistoryView.PackTask(t)
	}
	if ls := st.liveStages[stageKey{stageID, attempt}]; ls != nil && ls.s != s {
		ls.s.PackTask(t)
	}
}
