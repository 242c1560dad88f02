package web

import "net/http"

// logsPage shows every log with its state and every entry passed over
// with its reason (what /api/sparkdx/v1/logs answers).
func (s *Pages) logsPage(w http.ResponseWriter, r *http.Request) {
	ls := s.cfg.Ingest.Logs()
	s.render(w, http.StatusOK, "logs.html", map[string]any{"Title": "Event logs", "Live": false,
		"Status": ls, "Problems": ls.Problems(s.cfg.StuckAfter)})
}
