package server

import (
	"net/url"
	"strings"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/web"
)

// storedResources are the History Server views of one attempt stored with
// a completed log's analysis, so that the requests a dashboard or the
// OpenTelemetry Collector's Spark receiver makes are answered without
// replaying the log. Requests with a query string, and all others, use
// the model.
var storedResources = map[string]bool{"jobs": true, "stages": true, "executors": true, "allexecutors": true,
	"environment": true, "storage/rdd": true, "sql": true, "allmiscellaneousprocess": true}

// Views is the ingest.ViewsFunc of the server: the app page's data
// ("page") and, for a completed application, its History Server views
// ("api/<resource>").
func Views(in ingest.Input) (map[string][]byte, error) {
	a := in.Attempt
	page, err := web.StoredView(a, in.Analysis(), in.Now.UnixMilli())
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{"page": page}
	if !a.Completed {
		return out, nil // running-time dependent answers: computed per request
	}
	api := historyapi.New(replay.GroupApps([]*model.Attempt{a}))
	for res := range storedResources {
		x, err := api.Get("/api/v1/applications/" + url.PathEscape(a.AppID) + "/" + res)
		if err != nil {
			continue
		}
		out["api/"+res] = historyapi.Marshal(x)
	}
	return out, nil
}

// storedAPI answers /api/v1/applications/{id}[/{attempt}]/{resource} from
// a stored view when there is one.
func (s *Server) storedAPI(seg []string, rawQuery string) ([]byte, bool) {
	if rawQuery != "" {
		return nil, false
	}
	if len(seg) < 3 || seg[0] != "applications" {
		return nil, false
	}
	appID, attempt, res := seg[1], "", strings.Join(seg[2:], "/")
	if !storedResources[res] && len(seg) >= 4 {
		attempt, res = seg[2], strings.Join(seg[3:], "/")
	}
	if !storedResources[res] {
		return nil, false
	}
	// The attempt the History Server answers for: as the model path
	// would choose it, from the index alone.
	var key string
	for _, app := range skeletonApps(s.cfg.Ingest.Records()) {
		if app.ID != appID {
			continue
		}
		for _, a := range app.Attempts {
			if attempt == "" || a.AttemptID == attempt {
				if !a.Completed {
					return nil, false
				}
				key = ingest.Key(a.LogPath)
				break
			}
		}
	}
	if key == "" {
		return nil, false
	}
	b, err := s.cfg.Ingest.View(key, "api/"+res)
	if err != nil {
		return nil, false
	}
	return b, true
}
