package eventlog

import "github.com/sparkdx/sparkdx/internal/model"

func newTask(info *TaskInfo) *model.Task {
	return &model.Task{TaskID: info.TaskID, Index: info.Index, Attempt: info.Attempt, PartitionID: info.PartitionID,
		LaunchTime: info.LaunchTime, GettingResultTime: info.GettingResultTime, FinishTime: info.FinishTime,
		ExecutorID: info.ExecutorID, Host: info.Host, Locality: info.Locality, Speculative: info.Speculative,
		Failed: info.Failed, Killed: info.Killed, Accumulables: info.Accumulables}
}

func (st *state) taskStart(e EventTaskStart) {
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

func (st *state) taskEnd(e *EventTaskEnd) {
	var delta *model.TaskMetrics
	if t := st.liveTasks[e.Info.TaskID]; t != nil {
		delete(st.liveTasks, e.Info.TaskID)
		acc := t.Accumulables
		*t = *newTask(&e.Info)
		if e.Info.Accumulables == nil {
			t.Accumulables = acc
		}
		if e.Reason.Reason != "Success" {
			t.ErrorMessage, t.HasErrorMessage = e.Reason.ErrorMessage, true
		}
		t.EndReason = e.Reason.Reason
		if e.HasMetrics {
			t.HasMetrics, t.Metrics = true, e.Metrics
			delta = &e.Metrics
		}
	}
	completed, failed, killed := 0, 0, 0
	switch e.Reason.Reason {
	case "Success":
		completed = 1
	case "TaskKilled", "TaskCommitDenied":
		killed = 1
	default:
		failed = 1
	}
	duration := int64(0)
	if e.Info.FinishTime != 0 {
		duration = e.Info.FinishTime - e.Info.LaunchTime
	}
	k := stageKey{e.StageID, e.StageAttempt}
	if ls := st.liveStages[k]; ls != nil {
		s := ls.s
		if delta != nil {
			s.Metrics.Add(delta, 1)
		}
		s.ActiveTasks--
		s.CompletedTasks += completed
		if completed > 0 {
			if s.CompletedIndices == nil {
				s.CompletedIndices = map[int]struct{}{}
			}
			s.CompletedIndices[e.Info.Index] = struct{}{}
		}
		s.FailedTasks += failed
		s.KilledTasks += killed
		if killed > 0 {
			if s.KilledSummary == nil {
				s.KilledSummary = map[string]int{}
			}
			s.KilledSummary[e.Reason.KillReason]++
		}
		ls.activePerExecutor[e.Info.ExecutorID]--
		s.Peak.UpdatePeaks(&e.ExecMetrics)
		es := s.ExecutorSummary(e.Info.ExecutorID)
		es.Peak.UpdatePeaks(&e.ExecMetrics)
		remove := s.ActiveTasks == 0 && (s.Status == model.StageComplete || s.Status == model.StageFailed)
		idx := int64(e.StageID)<<32 | int64(e.Info.Index)
		for _, j := range ls.jobs {
			j.ActiveTasks--
			j.CompletedTasks += completed
			if completed > 0 {
				j.CompletedIndices[idx] = struct{}{}
			}
			j.FailedTasks += failed
			j.KilledTasks += killed
			if killed > 0 {
				j.KilledSummary[e.Reason.KillReason]++
			}
		}
		es.TaskTime += duration
		es.SucceededTasks += completed
		es.FailedTasks += failed
		es.KilledTasks += killed
		if delta != nil {
			es.Metrics.Add(delta, 1)
		}
		if remove {
			delete(st.liveStages, k)
		}
	}
	if ex := st.liveExecs[e.Info.ExecutorID]; ex != nil {
		ex.ActiveTasks--
		ex.CompletedTasks += completed
		ex.FailedTasks += failed
		ex.TotalDuration += duration
		ex.Peak.UpdatePeaks(&e.ExecMetrics)
		if e.Reason.Reason != "Resubmitted" && e.HasMetrics {
			m := &e.Metrics
			ex.TotalGCTime += m.JvmGcTime
			ex.TotalInputBytes += m.InputBytesRead
			ex.TotalShuffleRead += m.ShuffleReadBytes()
			ex.TotalShuffleWrite += m.ShuffleWrite.BytesWritten
		}
	}
}
