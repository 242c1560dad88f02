package replay

import (
	"maps"
	"slices"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

func (st *state) jobStart(e *sparkevent.JobStart) {
	numTasks, lastStage := 0, -1
	name := ""
	for i := range e.Stages {
		si := &e.Stages[i]
		if si.CompletionTime == model.NoTime {
			numTasks += si.NumTasks
		}
		if si.StageID >= lastStage {
			lastStage, name = si.StageID, si.Name
		}
	}
	j := &model.Job{ID: e.JobID, Name: name, Description: e.Props.Description, HasDescription: e.Props.HasDescription,
		SubmissionTime: model.NoTime, CompletionTime: model.NoTime, StageIDs: e.StageIDs,
		JobGroup: e.Props.JobGroup, HasJobGroup: e.Props.HasJobGroup, JobTags: e.Props.JobTags,
		Status: model.JobRunning, SQLExecutionID: e.Props.SQLExecutionID, NumTasks: numTasks,
		TraceParent: e.Props.TraceParent, TraceState: e.Props.TraceState,
		CompletedStages: map[int]struct{}{},
		SkippedStages:   map[int]struct{}{}, KilledSummary: map[string]int{}}
	if e.Time > 0 {
		j.SubmissionTime = e.Time
	}
	if j.StageIDs == nil {
		j.StageIDs = []int{}
	}
	st.a.AddJob(j)
	if st.a.JobRunProperties == nil && len(e.Props.Orchestrator) > 0 {
		st.a.JobRunProperties = e.Props.Orchestrator
	}
	st.liveJobs[j.ID] = j
	for i := range e.Stages {
		ls := st.stage(&e.Stages[i])
		ls.jobs = append(ls.jobs, j)
		if !slices.Contains(ls.s.JobIDs, j.ID) {
			ls.s.JobIDs = append(ls.s.JobIDs, j.ID)
		}
	}
	if j.SQLExecutionID >= 0 {
		x := st.jobSQL(j.SQLExecutionID)
		x.JobIDs = append(x.JobIDs, j.ID)
		st.sqlm.jobStart(x, e)
	}
}

func (st *state) jobEnd(e sparkevent.JobEnd) {
	st.sqlm.jobEnd(e.JobID)
	j := st.liveJobs[e.JobID]
	if j == nil {
		return
	}
	delete(st.liveJobs, e.JobID)
	for k, ls := range st.liveStages {
		if !slices.Contains(j.StageIDs, k.id) || ls.s.Status != model.StagePending {
			continue
		}
		// Only the job that ends counts the stage skipped (Spark 3.5 and
		// 4.3 alike); another job listing it learns nothing of it.
		ls.s.Status = model.StageSkipped
		j.SkippedStages[k.id] = struct{}{}
		j.SkippedTasks += ls.s.NumTasks
		st.settleShadow(ls, false)
		delete(st.liveStages, k)
	}
	j.Status = model.JobFailed
	j.ErrorMessage = e.Error
	if e.Succeeded {
		j.Status = model.JobSucceeded
	}
	if e.Time > 0 {
		j.CompletionTime = e.Time
	}
	st.detachEndedJob(j)
}

// detachEndedJob keeps an ended job as Spark stored it at its end. The
// listener still counts the tasks of the job's live stages into its
// object but writes that object again only when a task's end finishes
// one of those stages (publishJobs); the model's job is that written
// state, and the live stages count into a copy of it from now on.
func (st *state) detachEndedJob(j *model.Job) {
	var cp *model.Job
	for _, ls := range st.liveStages {
		for i, lj := range ls.jobs {
			if lj != j {
				continue
			}
			if cp == nil {
				cp = cloneJob(j)
				if st.endedJobs == nil { // a state restored from before the field
					st.endedJobs = map[int]*model.Job{}
				}
				st.endedJobs[j.ID] = cp
			}
			ls.jobs[i] = cp
		}
	}
}

// publishJobs writes the jobs of a stage a task's end finished, as Spark
// does: an ended job's model takes what its copy counted since its end.
func (st *state) publishJobs(ls *liveStage) {
	for _, lj := range ls.jobs {
		if st.endedJobs[lj.ID] != lj {
			continue
		}
		if j := st.a.Job(lj.ID); j != nil {
			*j = *cloneJob(lj)
		}
	}
}

func cloneJob(j *model.Job) *model.Job {
	cp := *j
	cp.CompletedStages = maps.Clone(j.CompletedStages)
	cp.SkippedStages = maps.Clone(j.SkippedStages)
	cp.KilledSummary = maps.Clone(j.KilledSummary)
	cp.CompletedIndices = j.CompletedIndices.Clone()
	return &cp
}

// stage returns the live stage for info, creating it, and refreshes its info.
func (st *state) stage(info *sparkevent.StageInfo) *liveStage {
	k := stageKey{info.StageID, info.AttemptID}
	ls := st.liveStages[k]
	if ls == nil {
		s, created := st.a.StageOrNew(info.StageID, info.AttemptID)
		ls = &liveStage{s: s, activePerExecutor: map[string]int{}}
		if !created {
			// A finished attempt listed again (a later job reusing it):
			// Spark starts a new live stage whose writes replace what its
			// store held for the attempt, keeping the stored tasks and
			// per-executor summaries. The model keeps the finished run and
			// tracks the new one apart (see shadowOf).
			ls.s = newShadow(s, st.pack)
			ls.shadowOf = s
		}
		st.liveStages[k] = ls
	}
	setStageInfo(ls.s, info)
	return ls
}

// newShadow is the fresh stage Spark's listener starts for a finished
// attempt listed again; it shares the stored tasks and summaries. With
// packed tasks it holds copies of the task lists: a task that ends later
// is packed into each (see state.packTask), which must not move the other's.
func newShadow(s *model.StageAttempt, packed bool) *model.StageAttempt {
	sh := &model.StageAttempt{StageID: s.StageID, AttemptID: s.AttemptID, Status: model.StagePending,
		SubmissionTime: model.NoTime, CompletionTime: model.NoTime, FirstLaunchTime: model.NoTime,
		SchedulingPool: "default", Tasks: s.Tasks, ExecSummary: s.ExecSummary}
	if packed {
		sh.Tasks, sh.Packed = slices.Clone(s.Tasks), s.Packed.Clone()
	}
	return sh
}

// settleShadow decides what a shadow stage means once it is written:
// skipped, it is only what the History Server shows for the attempt;
// submitted, it is a new run of the attempt and replaces the old one.
func (st *state) settleShadow(ls *liveStage, submitted bool) {
	if ls.shadowOf == nil {
		return
	}
	if submitted {
		ls.s.Tasks = append([]*model.Task(nil), ls.s.Tasks...)
		ls.s.Packed = ls.s.Packed.Clone()
		ls.s.ExecSummary = append([]*model.ExecutorStageSummary(nil), ls.s.ExecSummary...)
		st.a.ReplaceStage(ls.s)
	} else {
		ls.shadowOf.HistoryView = ls.s
	}
	ls.shadowOf = nil
}

func setStageInfo(s *model.StageAttempt, info *sparkevent.StageInfo) {
	s.Name, s.Details, s.NumTasks = info.Name, info.Details, info.NumTasks
	s.RDDIDs = s.RDDIDs[:0]
	for _, r := range info.RDDs {
		s.RDDIDs = append(s.RDDIDs, r.ID)
	}
	s.ParentIDs = info.ParentIDs
	s.ResourceProfileID = info.ResourceProfileID
	s.SubmissionTime, s.CompletionTime = info.SubmissionTime, info.CompletionTime
	s.FailureReason, s.HasFailureReason = info.FailureReason, info.HasFailureReason
	s.Accumulables = sparkAccumulableOrder(info.Accumulables, info.AccumulableCount)
	s.IsShufflePushEnabled, s.ShuffleMergersCount = info.IsShufflePushEnabled, info.ShuffleMergersCount
}

func (st *state) stageSubmitted(e sparkevent.StageSubmitted) {
	st.sqlm.stageSubmitted(e.Info.StageID, e.Info.AttemptID)
	ls := st.stage(&e.Info)
	st.settleShadow(ls, true)
	s := ls.s
	s.Status = model.StageActive
	s.SchedulingPool = e.Props.Pool
	if s.SchedulingPool == "" {
		s.SchedulingPool = "default"
	}
	ls.jobs = ls.jobs[:0]
	s.JobIDs = s.JobIDs[:0]
	for _, j := range st.a.Jobs {
		if st.liveJobs[j.ID] != nil && slices.Contains(j.StageIDs, s.StageID) {
			ls.jobs = append(ls.jobs, j)
			s.JobIDs = append(s.JobIDs, j.ID)
		}
	}
	s.Description, s.HasDescription = e.Props.Description, e.Props.HasDescription
	for _, j := range ls.jobs {
		delete(j.CompletedStages, s.StageID)
		j.ActiveStages++
	}
	for _, r := range e.Info.RDDs {
		if (r.UseMemory || r.UseDisk) && r.Replication > 0 {
			st.rddFor(r)
		}
	}
}

func (st *state) stageCompleted(e sparkevent.StageCompleted) {
	k := stageKey{e.Info.StageID, e.Info.AttemptID}
	ls := st.liveStages[k]
	if ls == nil {
		return
	}
	s := ls.s
	setStageInfo(s, &e.Info)
	switch {
	case e.Info.HasFailureReason:
		s.Status = model.StageFailed
	case e.Info.SubmissionTime != model.NoTime:
		s.Status = model.StageComplete
	default:
		s.Status = model.StageSkipped
	}
	for _, j := range ls.jobs {
		switch s.Status {
		case model.StageComplete:
			j.CompletedStages[s.StageID] = struct{}{}
		case model.StageSkipped:
			j.SkippedStages[s.StageID] = struct{}{}
			j.SkippedTasks += s.NumTasks
		default:
			j.FailedStages++
		}
		j.ActiveStages--
	}
	for id := range s.ExcludedExecutors {
		if ex := st.liveExecs[id]; ex != nil {
			delete(ex.ExcludedInStages, s.StageID)
		}
	}
	if s.ActiveTasks == 0 {
		delete(st.liveStages, k)
	}
	for id, e := range st.deadExecs {
		if !st.activeForLiveStages(e) {
			delete(st.deadExecs, id)
		}
	}
}

// sparkAccumulableOrder lists a stage's accumulables as Spark does: the
// log lists them by id, Spark reads them into StageInfo's mutable.HashMap
// and lists that map (the first of ids 1349..1408 can be 1408).
// The map's table is sized by all n entries the log listed, those the
// model leaves out (internal task metrics) included.
func sparkAccumulableOrder(accs []model.Accumulable, n int) []model.Accumulable {
	if len(accs) < 2 {
		return accs
	}
	hashes := make([]int32, len(accs))
	for i := range accs {
		hashes[i] = model.LongHash(accs[i].ID)
	}
	return model.Reorder(accs, model.MutableHashMapOrder(hashes, max(n, len(accs))))
}
