package web

import (
	"encoding/json"
	"net/http"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
)

// CompareOffered is how many application ids the Compare page offers.
const CompareOffered = 500

func (s *Pages) comparePage(w http.ResponseWriter, r *http.Request) {
	// The ids offered: the applications started last (the summaries come
	// newest first); any other id can be typed.
	seen := map[string]bool{}
	var apps []*fleet.AppSummary
	for i, all := 0, s.cfg.Source.Summaries(); i < len(all) && len(apps) < CompareOffered; i++ {
		if a := &all[i]; !seen[a.ID] {
			seen[a.ID] = true
			apps = append(apps, a)
		}
	}
	q := r.URL.Query()
	data := map[string]any{"Title": "Compare", "Apps": apps, "A": q.Get("a"), "B": q.Get("b"), "Live": false}
	if q.Get("a") != "" && q.Get("b") != "" {
		var d diff.Diff
		b, _, err := s.cfg.Source.Diff(r.Context(), q.Get("a"), q.Get("b"))
		if err == nil {
			err = json.Unmarshal(b, &d)
		}
		if err != nil {
			data["Error"] = err.Error()
		} else {
			data["Diff"] = &d
		}
	}
	s.render(w, http.StatusOK, "compare.html", data)
}
