package historyapi

import (
	"net/url"
	"sort"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

func jobList(a *model.Attempt, q url.Values) (any, error) {
	want := map[string]bool{}
	for _, s := range q["status"] {
		u := strings.ToUpper(s)
		switch u {
		case model.JobRunning, model.JobSucceeded, model.JobFailed, model.JobUnknown:
			want[u] = true
		default:
			return nil, notFound("unknown job status: %s", s)
		}
	}
	out := []any{}
	for _, j := range Jobs(a, want) {
		out = append(out, j.obj())
	}
	return out, nil
}

// Jobs are the attempt's jobs of the statuses asked (all when none),
// newest first, as /jobs answers them.
func Jobs(a *model.Attempt, statuses map[string]bool) []JobData {
	jobs := append([]*model.Job(nil), a.Jobs...)
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].ID > jobs[j].ID })
	out := []JobData{}
	for _, j := range jobs {
		if len(statuses) == 0 || statuses[j.Status] {
			out = append(out, Job(j))
		}
	}
	return out
}

// JobByID is job id of the attempt, or the API's error.
func JobByID(a *model.Attempt, id int) (JobData, error) {
	j := a.Job(id)
	if j == nil {
		return JobData{}, notFound("unknown job: %d", id)
	}
	return Job(j), nil
}

// JobData is one job as the History Server's JobData has it: the typed
// value /jobs answers (written by obj) and serve's job pages read.
type JobData struct {
	JobID                                                                int
	Name, Description                                                    string
	HasDescription                                                       bool
	SubmissionTime, CompletionTime                                       string // the API's dates; "" when unknown
	StageIDs                                                             []int
	JobGroup                                                             string
	HasJobGroup                                                          bool
	JobTags                                                              []string
	Status                                                               string
	NumTasks, NumActiveTasks, NumCompletedTasks, NumSkippedTasks         int
	NumFailedTasks, NumKilledTasks, NumCompletedIndices, NumActiveStages int
	NumCompletedStages, NumSkippedStages, NumFailedStages                int
	KilledTasksSummary                                                   map[string]int
}

// Job is job j as the History Server shows it.
func Job(j *model.Job) JobData {
	d := JobData{JobID: j.ID, Name: j.Name, HasDescription: j.HasDescription,
		StageIDs: j.StageIDs, HasJobGroup: j.HasJobGroup, JobTags: j.JobTags, Status: j.Status,
		NumTasks: j.NumTasks, NumActiveTasks: j.ActiveTasks, NumCompletedTasks: j.CompletedTasks,
		NumSkippedTasks: j.SkippedTasks, NumFailedTasks: j.FailedTasks, NumKilledTasks: j.KilledTasks,
		NumCompletedIndices: j.CompletedIndices.Len(), NumActiveStages: j.ActiveStages,
		NumCompletedStages: len(j.CompletedStages), NumSkippedStages: len(j.SkippedStages),
		NumFailedStages: j.FailedStages, KilledTasksSummary: j.KilledSummary}
	if j.HasDescription {
		d.Description = j.Description
	}
	if j.HasJobGroup {
		d.JobGroup = j.JobGroup
	}
	if j.SubmissionTime != model.NoTime {
		d.SubmissionTime = date(j.SubmissionTime)
	}
	if j.CompletionTime != model.NoTime {
		d.CompletionTime = date(j.CompletionTime)
	}
	return d
}

// obj writes the job as Spark's JobData.
func (d *JobData) obj() *Obj {
	o := obj().Set("jobId", d.JobID).Set("name", d.Name)
	if d.HasDescription {
		o.Set("description", d.Description)
	}
	if d.SubmissionTime != "" {
		o.Set("submissionTime", d.SubmissionTime)
	}
	if d.CompletionTime != "" {
		o.Set("completionTime", d.CompletionTime)
	}
	o.Set("stageIds", intsAny(d.StageIDs))
	if d.HasJobGroup {
		o.Set("jobGroup", d.JobGroup)
	}
	o.Set("jobTags", stringsAny(d.JobTags)).Set("status", d.Status).
		Set("numTasks", d.NumTasks).Set("numActiveTasks", d.NumActiveTasks).
		Set("numCompletedTasks", d.NumCompletedTasks).Set("numSkippedTasks", d.NumSkippedTasks).
		Set("numFailedTasks", d.NumFailedTasks).Set("numKilledTasks", d.NumKilledTasks).
		Set("numCompletedIndices", d.NumCompletedIndices).Set("numActiveStages", d.NumActiveStages).
		Set("numCompletedStages", d.NumCompletedStages).Set("numSkippedStages", d.NumSkippedStages).
		Set("numFailedStages", d.NumFailedStages).Set("killedTasksSummary", countsObj(d.KilledTasksSummary))
	return o
}

func countsObj(m map[string]int) *Obj {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	o := obj()
	for _, k := range keys {
		o.Set(k, m[k])
	}
	return o
}
