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
	jobs := append([]*model.Job(nil), a.Jobs...)
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].ID > jobs[j].ID })
	out := []any{}
	for _, j := range jobs {
		if len(want) == 0 || want[j.Status] {
			out = append(out, jobData(j))
		}
	}
	return out, nil
}

func jobData(j *model.Job) *Obj {
	o := obj().Set("jobId", j.ID).Set("name", j.Name)
	if j.HasDescription {
		o.Set("description", j.Description)
	}
	if j.SubmissionTime != model.NoTime {
		o.Set("submissionTime", date(j.SubmissionTime))
	}
	if j.CompletionTime != model.NoTime {
		o.Set("completionTime", date(j.CompletionTime))
	}
	o.Set("stageIds", intsAny(j.StageIDs))
	if j.HasJobGroup {
		o.Set("jobGroup", j.JobGroup)
	}
	o.Set("jobTags", stringsAny(j.JobTags)).Set("status", j.Status).
		Set("numTasks", j.NumTasks).Set("numActiveTasks", j.ActiveTasks).
		Set("numCompletedTasks", j.CompletedTasks).Set("numSkippedTasks", j.SkippedTasks).
		Set("numFailedTasks", j.FailedTasks).Set("numKilledTasks", j.KilledTasks).
		Set("numCompletedIndices", j.CompletedIndices.Len()).Set("numActiveStages", j.ActiveStages).
		Set("numCompletedStages", len(j.CompletedStages)).Set("numSkippedStages", len(j.SkippedStages)).
		Set("numFailedStages", j.FailedStages).Set("killedTasksSummary", countsObj(j.KilledSummary))
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
