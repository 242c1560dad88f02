package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/pagecache"
)

func (s *Pages) fleetPage(w http.ResponseWriter, r *http.Request) {
	version := s.cfg.Ingest.Version()
	f := s.cfg.Source.Fleet(r.Context())
	fleet.MarkDown(w, f.Down)
	ckey := "fleet|" + strconv.FormatUint(f.Gen, 10) + "?" + pagecache.ParamKey(r.URL.Query(), pagecache.AppListParams...)
	if body, _, ok := s.cfg.Cache.Get(ckey, version, pagecache.FleetTTL); ok {
		writeHTML(w, http.StatusOK, body)
		return
	}
	all := f.Apps
	q := r.URL.Query()
	apps, l, err := fleet.AppList(all, q, FleetPageLength)
	data := map[string]any{"Title": "Fleet", "Apps": apps, "Total": len(all), "Matched": l.Total, "Offset": l.Offset,
		"Q": flat(q), "Statuses": []string{"running", "completed", "incomplete"}, "Status": s.cfg.Ingest.Status(), "Sorts": fleetSorts}
	data["Prev"], data["Next"] = fleet.PageLinks("/", pagecache.OnlyParams(q, pagecache.AppListParams...), l) // cached: no other parameter
	data["PeersDown"] = f.Down
	if err != nil {
		data["Error"] = err.Error()
	}
	running := 0
	for _, a := range all {
		if a.Status == "running" {
			running++
		}
	}
	data["Running"], data["Live"] = running, running > 0
	body, err := s.renderBytes("fleet.html", data)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.cfg.Cache.Put(ckey, version, body, "")
	writeHTML(w, http.StatusOK, body)
}

// fleetSorts are the fleet page's orders (?sort= of the apps API).
var fleetSorts = []struct{ Key, Label string }{{"-start", "newest"}, {"start", "oldest"}, {"-duration", "longest"},
	{"-severity", "worst finding"}, {"-cost", "costliest"}, {"-tasks", "most tasks"}, {"name", "name"}, {"user", "user"}}

// FleetPageLength is how many application attempts a fleet page lists.
const FleetPageLength = 100

func flat(q url.Values) map[string]string {
	m := map[string]string{}
	for _, k := range []string{"q", "user", "status", "rule", "tag", "run", "from", "to", "sort"} {
		m[k] = q.Get(k)
	}
	return m
}
