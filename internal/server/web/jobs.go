package web

import (
	"net/http"
	"sort"

	"github.com/sparkdx/sparkdx/internal/historyapi"
)

// jobRow is a job as the jobs page lists it: the API's JobData and the
// job's stage attempts that ran, for links.
type jobRow struct {
	historyapi.JobData
	Stages []stageRef
}

type stageRef struct {
	StageID   int
	AttemptID int
	Name      string
	Status    string
}

// stageRefs are the attempt's stage attempts as the API lists them.
func (d *apiDocs) stageRefs() []stageRef {
	var out []stageRef
	for _, st := range d.api.StageList(d.attempt, nil, historyapi.StageOptions{}) {
		out = append(out, stageRef{StageID: st.StageID, AttemptID: st.AttemptID, Name: st.Name, Status: st.Status})
	}
	return out
}

// jobRows are jobs with no stages attached yet.
func jobRows(jobs []historyapi.JobData) []jobRow {
	out := make([]jobRow, len(jobs))
	for i, j := range jobs {
		out[i].JobData = j
	}
	return out
}

// jobsPage lists the application's jobs, newest first as Spark's UI does,
// each with links to the stage attempts it ran.
func (s *Pages) jobsPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	if d.attempt == nil {
		s.errorPage(w, http.StatusNotFound, "Cannot list the jobs", "no such attempt: "+d.base)
		return
	}
	jobs := jobRows(historyapi.Jobs(d.attempt, nil))
	attachStages(jobs, d.stageRefs())
	s.render(w, http.StatusOK, "jobs.html", map[string]any{"Title": "Jobs · " + sum.Name, "Live": sum.Status == "running",
		"Sum": sum, "Jobs": jobs})
}

// attachStages gives each job the attempts of its stages that ran (a
// skipped stage has none), in stage and attempt order.
func attachStages(jobs []jobRow, stages []stageRef) {
	byID := map[int][]stageRef{}
	for _, st := range stages {
		byID[st.StageID] = append(byID[st.StageID], st)
	}
	for i := range jobs {
		for _, id := range jobs[i].StageIDs {
			jobs[i].Stages = append(jobs[i].Stages, byID[id]...)
		}
		sort.Slice(jobs[i].Stages, func(a, b int) bool {
			x, y := jobs[i].Stages[a], jobs[i].Stages[b]
			return x.StageID < y.StageID || x.StageID == y.StageID && x.AttemptID < y.AttemptID
		})
	}
}
