package web

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/sparkdx/sparkdx/internal/historyapi"
)

// jobStage is one stage attempt of a job, as the job page lists it.
type jobStage struct {
	*historyapi.StageData
}

// DurationMs is the stage attempt's duration as Spark's UI and `sparkdx
// analyze` define it — first task launch to completion (submission to
// completion when no task ran) —, -1 while it runs.
func (s jobStage) DurationMs() int64 {
	start := s.FirstTaskLaunchedTime
	if start == "" {
		start = s.SubmissionTime
	}
	from, err1 := time.Parse(sparkDate, start)
	to, err2 := time.Parse(sparkDate, s.CompletionTime)
	if err1 != nil || err2 != nil {
		return -1
	}
	return to.Sub(from).Milliseconds()
}

// sparkDate is how the History Server API writes times.
const sparkDate = "2006-01-02T15:04:05.000GMT"

// jobPage shows one job and the stage attempts it ran; stages it skipped
// (their output reused) are counted.
func (s *Pages) jobPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	id, err := strconv.Atoi(r.PathValue("job"))
	if err != nil {
		s.errorPage(w, http.StatusNotFound, "Unknown job", "A job is /apps/ID/jobs/JOB.")
		return
	}
	if d.attempt == nil {
		s.errorPage(w, http.StatusNotFound, "Unknown job", "no such attempt: "+d.base)
		return
	}
	job, err := historyapi.JobByID(d.attempt, id)
	if err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Unknown job", err.Error())
		return
	}
	all := d.api.StageList(d.attempt, nil, historyapi.StageOptions{})
	mine := map[int]bool{}
	for _, sid := range job.StageIDs {
		mine[sid] = true
	}
	var stages []jobStage
	for _, st := range all {
		if mine[st.StageID] {
			stages = append(stages, jobStage{st})
		}
	}
	sort.Slice(stages, func(a, b int) bool {
		x, y := stages[a], stages[b]
		return x.StageID < y.StageID || x.StageID == y.StageID && x.AttemptID < y.AttemptID
	})
	s.render(w, http.StatusOK, "job.html", map[string]any{"Title": fmt.Sprintf("Job %d · %s", id, sum.Name),
		"Live": sum.Status == "running", "Sum": sum, "Job": job, "Stages": stages})
}
