package web

import (
	"net/http"
	"sort"

	"github.com/sparkdx/sparkdx/internal/historyapi"
)

// jobDoc is the part of the API's JobData the jobs page shows.
type jobDoc struct {
	JobID             int    `json:"jobId"`
	Name              string `json:"name"`
	Description       string `json:"description"`
	SubmissionTime    string `json:"submissionTime"`
	CompletionTime    string `json:"completionTime"`
	StageIDs          []int  `json:"stageIds"`
	Status            string `json:"status"`
	NumTasks          int    `json:"numTasks"`
	NumCompletedTasks int    `json:"numCompletedTasks"`
	NumFailedTasks    int    `json:"numFailedTasks"`
	NumKilledTasks    int    `json:"numKilledTasks"`
	NumSkippedStages  int    `json:"numSkippedStages"`
	NumFailedStages   int    `json:"numFailedStages"`
	// Stages are the job's stage attempts that ran, for links.
	Stages []stageRef `json:"-"`
}

type stageRef struct {
	StageID   int    `json:"stageId"`
	AttemptID int    `json:"attemptId"`
	Name      string `json:"name"`
	Status    string `json:"status"`
}

// jobsPage lists the application's jobs, newest first as Spark's UI does,
// each with links to the stage attempts it ran.
func (s *Pages) jobsPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	var jobs []jobDoc
	var stages []stageRef
	if err := d.get("/jobs", &jobs); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the jobs", err.Error())
		return
	}
	if err := d.get("/stages", &stages); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the stages", err.Error())
		return
	}
	attachStages(jobs, stages)
	s.render(w, http.StatusOK, "jobs.html", map[string]any{"Title": "Jobs · " + sum.Name, "Live": sum.Status == "running",
		"Sum": sum, "Jobs": jobs})
}

// attachStages gives each job the attempts of its stages that ran (a
// skipped stage has none), in stage and attempt order.
func attachStages(jobs []jobDoc, stages []stageRef) {
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
