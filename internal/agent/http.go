package agent

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/sparkdx/sparkdx/internal/access"
)

// HTTPConfig says who may read the agent's HTTP endpoints.
type HTTPConfig struct {
	// Token, when set, is the bearer token every request must carry
	// (--auth-token-file): /snapshot and /events list every Spark JVM's
	// command line and memory, and /metrics the same figures.
	Token string
	// Hosts is the Host allowlist (DNS rebinding); nil allows any.
	Hosts *access.Hosts
}

// HTTPHandler serves /metrics (Prometheus), /events (the recent exits and
// heap dumps) and /snapshot (the last cycle, as `agent --once` prints it)
// to the requests cfg allows; only GET and HEAD.
func (a *Agent) HTTPHandler(cfg HTTPConfig) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.Handler())
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(a.Events())
	})
	mux.HandleFunc("GET /snapshot", func(w http.ResponseWriter, _ *http.Request) {
		s := a.Last()
		if s == nil {
			http.Error(w, "no sample yet", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		s.WriteJSON(w)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if cfg.Hosts.Check(w, r) {
			return
		}
		if !access.Bearer(r, cfg.Token, "") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sparkdx-agent"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// HTTPServer returns the agent's http.Server for h: its answers are
// small and its clients few (Prometheus, a person), so slow or idle ones
// are cut early.
func HTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
}
