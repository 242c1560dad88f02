package historyapi

import (
	"strconv"

	"github.com/sparkdx/sparkdx/internal/model"
)

// StageData is one stage attempt as the History Server's StageData has
// it: the typed value /stages answers (written by obj, field for field
// as Spark does) and serve's stage page reads.
type StageData struct {
	Status                                                string
	StageID, AttemptID                                    int
	NumTasks, NumActiveTasks, NumCompleteTasks            int
	NumFailedTasks, NumKilledTasks, NumCompletedIndices   int
	SubmissionTime, FirstTaskLaunchedTime, CompletionTime string // the API's dates; "" when unknown
	FailureReason                                         string
	HasFailureReason                                      bool
	Name, Description, Details, SchedulingPool            string
	HasDescription                                        bool
	// Totals are the stage's task metrics summed.
	Totals *model.TaskMetrics
	// Tasks and ExecutorSummary come with StageOptions.Details, in the
	// order Spark's maps write them; nil without.
	Tasks           []TaskData
	ExecutorSummary []*model.ExecutorStageSummary

	stage   *model.StageAttempt // as shown, for what obj writes from the model
	attempt *model.Attempt
	opts    StageOptions
	api     *API
}

// The stage's totals under the API's names.
func (d *StageData) ExecutorRunTime() int64     { return d.Totals.ExecutorRunTime }
func (d *StageData) JvmGcTime() int64           { return d.Totals.JvmGcTime }
func (d *StageData) InputBytes() int64          { return d.Totals.InputBytesRead }
func (d *StageData) OutputBytes() int64         { return d.Totals.OutputBytesWritten }
func (d *StageData) ShuffleReadBytes() int64    { return d.Totals.ShuffleReadBytes() }
func (d *StageData) ShuffleWriteBytes() int64   { return d.Totals.ShuffleWrite.BytesWritten }
func (d *StageData) MemoryBytesSpilled() int64  { return d.Totals.MemoryBytesSpilled }
func (d *StageData) DiskBytesSpilled() int64    { return d.Totals.DiskBytesSpilled }
func (d *StageData) PeakExecutionMemory() int64 { return d.Totals.PeakExecutionMemory }

// Stage is stage attempt s of a as the History Server shows it.
func (api *API) Stage(a *model.Attempt, s *model.StageAttempt, opts StageOptions) *StageData {
	s = shown(s)
	d := &StageData{Status: s.Status, StageID: s.StageID, AttemptID: s.AttemptID, NumTasks: s.NumTasks,
		NumActiveTasks: s.ActiveTasks, NumCompleteTasks: s.CompletedTasks, NumFailedTasks: s.FailedTasks,
		NumKilledTasks: s.KilledTasks, NumCompletedIndices: s.CompletedIndices.Len(),
		HasFailureReason: s.HasFailureReason, Totals: &s.Metrics,
		Name: s.Name, HasDescription: s.HasDescription, Details: s.Details,
		SchedulingPool: s.SchedulingPool, stage: s, attempt: a, opts: opts, api: api}
	if s.HasFailureReason {
		d.FailureReason = s.FailureReason
	}
	if s.HasDescription {
		d.Description = s.Description
	}
	if s.SubmissionTime != model.NoTime {
		d.SubmissionTime = date(s.SubmissionTime)
	}
	if s.FirstLaunchTime != model.NoTime {
		d.FirstTaskLaunchedTime = date(s.FirstLaunchTime)
	}
	if s.CompletionTime != model.NoTime {
		d.CompletionTime = date(s.CompletionTime)
	}
	if opts.Details {
		d.Tasks = []TaskData{}
		for _, t := range sparkTaskMapOrder(s, opts.TaskStatus) {
			d.Tasks = append(d.Tasks, api.Task(a, t))
		}
		d.ExecutorSummary = sparkExecSummaryOrder(s.ExecSummary)
	}
	return d
}

// obj writes the stage as Spark's StageData.
func (d *StageData) obj() *Obj {
	s, m := d.stage, d.Totals
	o := obj().Set("status", d.Status).Set("stageId", d.StageID).Set("attemptId", d.AttemptID).
		Set("numTasks", d.NumTasks).Set("numActiveTasks", d.NumActiveTasks).Set("numCompleteTasks", d.NumCompleteTasks).
		Set("numFailedTasks", d.NumFailedTasks).Set("numKilledTasks", d.NumKilledTasks).
		Set("numCompletedIndices", d.NumCompletedIndices)
	if d.SubmissionTime != "" {
		o.Set("submissionTime", d.SubmissionTime)
	}
	if d.FirstTaskLaunchedTime != "" {
		o.Set("firstTaskLaunchedTime", d.FirstTaskLaunchedTime)
	}
	if d.CompletionTime != "" {
		o.Set("completionTime", d.CompletionTime)
	}
	if d.HasFailureReason {
		o.Set("failureReason", d.FailureReason)
	}
	// The stage's totals, flat, from the table of task metrics; the read
	// bytes follow the local ones, as StageData has them.
	// StageData declares shuffleRemoteReqsDuration among the push-based
	// merged totals, before shuffleMergedRemoteReqsDuration.
	var reqs *model.MetricField
	eachAPIField(d.api.metrics, func(f *model.MetricField) {
		switch f.Stage {
		case "":
			return
		case "shuffleRemoteReqsDuration":
			reqs = f
			return
		case "shuffleMergedRemoteReqsDuration":
			if reqs != nil {
				o.Set(reqs.Stage, *reqs.Of(m))
				reqs = nil
			}
		}
		o.Set(f.Stage, *f.Of(m))
		if f.Stage == "shuffleLocalBytesRead" {
			o.Set("shuffleReadBytes", m.ShuffleReadBytes())
		}
	})
	if reqs != nil {
		o.Set(reqs.Stage, *reqs.Of(m))
	}
	o.Set("name", d.Name)
	if d.HasDescription {
		o.Set("description", d.Description)
	}
	o.Set("details", d.Details).Set("schedulingPool", d.SchedulingPool).Set("rddIds", intsAny(s.RDDIDs)).
		Set("accumulatorUpdates", accumulables(s.Accumulables, false))
	if d.opts.Details {
		tasks := obj()
		for i := range d.Tasks {
			tasks.Set(strconv.FormatInt(d.Tasks[i].TaskID, 10), d.Tasks[i].obj())
		}
		o.Set("tasks", tasks)
		es := obj()
		for _, e := range d.ExecutorSummary {
			es.Set(e.ExecutorID, execStageSummary(e))
		}
		o.Set("executorSummary", es)
		if sp := speculationSummary(s); sp != nil {
			o.Set("speculationSummary", sp)
		}
	}
	o.Set("killedTasksSummary", countsObj(s.KilledSummary)).Set("resourceProfileId", s.ResourceProfileID)
	if s.Peak.Set {
		o.Set("peakExecutorMetrics", peakObj(&s.Peak))
	}
	if d.opts.WithSummaries {
		if ts := TaskSummary(d.attempt, s, d.opts.Quantiles); ts != nil {
			o.Set("taskMetricsDistributions", ts.obj())
		}
		if ed := executorDistributions(s, d.opts.Quantiles); ed != nil {
			o.Set("executorMetricsDistributions", ed)
		}
	}
	o.Set("isShufflePushEnabled", s.IsShufflePushEnabled).Set("shuffleMergersCount", s.ShuffleMergersCount)
	return o
}
