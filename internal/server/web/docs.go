package web

import (
	"context"
	"net/http"
	"net/url"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
)

// The drill-down pages (jobs, stage, environment, executors, SQL) show
// what the History Server API answers for the application: the typed
// values package historyapi writes /api/v1's documents from, so a page
// and the API never disagree, and no page goes through JSON.

// apiDocs is the History Server API over one application, and the
// attempt a page shows.
type apiDocs struct {
	api     *historyapi.API
	base    string         // "/api/v1/applications/ID" (with "/ATTEMPT" when it has attempt ids)
	attempt *model.Attempt // the attempt shown, for what the API has no document of (charts)
}

func (s *Pages) apiDocs(ctx context.Context, id, attempt string) (*apiDocs, func(), error) {
	app, release, err := s.cfg.Source.App(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	api := historyapi.New([]*model.App{app})
	api.Now = func() int64 { return s.cfg.Now().UnixMilli() }
	base := "/api/v1/applications/" + url.PathEscape(id)
	if attempt == "" && len(app.Attempts) > 0 {
		attempt = app.Attempts[0].AttemptID // the newest, as the History Server orders them
	}
	if attempt != "" {
		base += "/" + url.PathEscape(attempt)
	}
	d := &apiDocs{api: api, base: base}
	for _, a := range app.Attempts {
		if a.AttemptID == attempt {
			d.attempt = a
		}
	}
	return d, release, nil
}

// stage is a stage attempt of the attempt shown, or the API's error.
func (d *apiDocs) stage(id, attempt int) (*model.StageAttempt, error) {
	if d.attempt == nil { // the index names an attempt the model lacks
		return nil, &historyapi.Error{Status: http.StatusNotFound, Msg: "no such attempt: " + d.base}
	}
	return historyapi.StageAttempt(d.attempt, id, attempt)
}

// docsPage opens the API documents of the application a page is about, or
// writes the error page.
func (s *Pages) docsPage(w http.ResponseWriter, r *http.Request) (*apiDocs, fleet.AppSummary, func(), bool) {
	id := r.PathValue("id")
	sum, ok := fleet.Pick(s.attemptsOf(id), r.URL.Query().Get("attempt"))
	if !ok {
		s.errorPage(w, http.StatusNotFound, "Unknown application", "No application attempt "+id+" is indexed.")
		return nil, sum, nil, false
	}
	d, release, err := s.apiDocs(r.Context(), id, sum.AttemptID)
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "Cannot read the application", err.Error())
		return nil, sum, nil, false
	}
	return d, sum, release, true
}
