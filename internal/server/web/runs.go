package web

import (
	"net/http"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
)

// runsPage lists the runs (the page of /api/sparkdx/v1/runs).
func (s *Pages) runsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := fleet.RunList(s.cfg.Source.Summaries(), q)
	data := map[string]any{"Title": "Runs", "Live": false, "Page": p, "Q": q.Get("q"), "StatusQ": q.Get("status"),
		"Statuses": []string{"running", "completed", "incomplete"}}
	if err != nil {
		data["Error"] = err.Error()
	}
	data["Prev"], data["Next"] = fleet.PageLinks("/runs", q, p.Listing)
	for _, x := range p.Runs {
		if x.Status == "running" {
			data["Live"] = true
		}
	}
	s.render(w, http.StatusOK, "runs.html", data)
}

// runDetailPage shows a run's applications and its per-process-type
// table (the page of /api/sparkdx/v1/runs/{run}).
func (s *Pages) runDetailPage(w http.ResponseWriter, r *http.Request) {
	d, ok := fleet.Detail(s.cfg.Source.Summaries(), r.PathValue("run"), s.cfg.Store.Samples)
	if !ok {
		s.errorPage(w, http.StatusNotFound, "Unknown run", "No application names the run "+r.PathValue("run")+".")
		return
	}
	s.render(w, http.StatusOK, "run.html", map[string]any{"Title": d.Name, "Live": d.Status == "running", "Run": d})
}
