// Package server is sparkdx serve's HTTP side over what package ingest
// keeps current. It owns the Server — its routes, the bearer token and
// Host checks, the listener's limits — the application store (the
// summaries of every indexed attempt, refreshed as logs change), the
// History Server API (/api/v1), sparkdx's own API (/api/sparkdx/v1),
// /metrics and /healthz. The pages are package web's, the OTLP receiver
// package otlpin's, the other serve instances package peers'. It is
// read-only: no request changes a log, and no request path reaches the
// filesystem except through the indexed log list.
package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkdx/sparkdx/internal/access"
	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/otlpin"
	"github.com/sparkdx/sparkdx/internal/server/pagecache"
	"github.com/sparkdx/sparkdx/internal/server/peers"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/server/web"
)

// Config configures a Server.
type Config struct {
	Ingest    *ingest.Ingester
	Store     *store.Store
	AuthToken string // when set, every path but /healthz needs "Authorization: Bearer <token>"
	// Hosts is the Host allowlist every request is checked against (DNS
	// rebinding, access.Hosts); nil allows any.
	Hosts  *access.Hosts
	Logger *slog.Logger
	Now    func() time.Time
	// RawLogs serves .../logs (zips of the raw event logs, as the History
	// Server does); off by default since raw logs are not redacted by us.
	RawLogs bool
	// MetricsWindow keeps finished applications in /metrics this long
	// after they end (default 1h).
	MetricsWindow time.Duration
	// MetricsMaxFinished bounds the finished applications in /metrics: the
	// ones that ended last (default prom.DefaultMaxFinishedApps).
	MetricsMaxFinished int
	// Metrics also receives every OTLP metrics request stored (the Delta
	// samples table); none when nil.
	Metrics otlpin.MetricsSink
	// Peers, when its shard is enabled and it lists URLs, makes this one
	// of several instances sharing the event logs (package peers).
	Peers peers.Config
	// Prices put money beside the hours of each application's cost (the
	// fleet, the app page, the job pages); none: hours only.
	Prices cost.PriceList
	// Regression judges recurring jobs' runs (zero: regress.DefaultConfig).
	Regression regress.Config
	// ExplainRuns is how many regressed runs, the newest first, one answer
	// of a job explains (zero: DefaultExplainRuns); the older ones are
	// listed unexplained.
	ExplainRuns int
	// Exports says how serve's Delta writes go (/healthz, /metrics); none
	// when nil.
	Exports ExportHealth
	// Profiles is a directory of CPU profiles (sparkdx agent
	// --profile-dir) whose files named by an application's id add flame
	// graphs to its page; none when empty.
	Profiles string
	// Collectors add to /metrics (Spark's sinks' series: package sinks).
	Collectors []prometheus.Collector
}

// ExportHealth is what the exports say of their writes.
type ExportHealth interface {
	// Problems names the destinations whose last write failed.
	Problems() []string
	// WriteFailures counts failed writes of application rows and agent
	// samples, and the samples dropped while their writes failed.
	WriteFailures() (apps, samples, samplesDropped int64)
}

// Server serves HTTP.
type Server struct {
	cfg Config
	mux *http.ServeMux

	cache *pagecache.Cache
	peers *peers.Set // nil: this instance is the whole fleet
	otlp  *otlpin.Receiver

	sumMu sync.Mutex
	sums  map[string]cachedSummary // report-derived fields by log key
	list  summaryList              // the last summaries() built, under sumMu
	// live admits one background analysis of a running log at a time, so
	// the fleet views never wait for one and never take more than a core.
	live      chan struct{}
	jobs      jobCache     // regression samples by log key (jobs.go)
	explained explainCache // causes of regressed runs (explain.go)
	// explainAnalyses counts the logs explanations replayed and analysed
	// (diffInput): what the cache saves, and what its test counts.
	explainAnalyses atomic.Int64
}

// New returns a Server.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), sums: map[string]cachedSummary{}, live: make(chan struct{}, 1),
		cache: pagecache.New(pagecache.MaxPages, pagecache.MaxBytes), peers: peers.New(cfg.Peers, cfg.AuthToken)}
	s.explained.max = maxExplanations
	s.otlp = otlpin.New(otlpin.Config{Store: cfg.Store, Metrics: cfg.Metrics, Apps: appIndex{s}, Shard: cfg.Peers.Shard,
		Logger: cfg.Logger, Now: cfg.Now})
	s.routes()
	return s
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /healthz", s.healthz)
	if h, err := s.metricsHandler(); err == nil {
		m.Handle("GET /metrics", h)
	} else {
		s.cfg.Logger.Error("metrics", "err", err)
	}
	m.HandleFunc("/api/v1/", s.historyAPI)
	m.HandleFunc("GET /api/sparkdx/v1/apps", s.apiApps)
	m.HandleFunc("GET /api/sparkdx/v1/apps/{id}", s.apiApp)
	m.HandleFunc("GET /api/sparkdx/v1/apps/{id}/report", s.apiReport)
	m.HandleFunc("GET /api/sparkdx/v1/apps/{id}/samples", s.apiSamples)
	m.HandleFunc("GET /api/sparkdx/v1/jobs", s.apiJobs)
	m.HandleFunc("GET /api/sparkdx/v1/jobs/{job}", s.apiJob)
	m.HandleFunc("GET /api/sparkdx/v1/runs", s.apiRuns)
	m.HandleFunc("GET /api/sparkdx/v1/runs/{run}", s.apiRun)
	m.HandleFunc("GET /api/sparkdx/v1/findings", s.apiFindings)
	m.HandleFunc("GET /api/sparkdx/v1/diff", s.apiDiff)
	m.HandleFunc("GET /api/sparkdx/v1/status", s.apiStatus)
	m.HandleFunc("GET /api/sparkdx/v1/logs", s.apiLogs)
	m.HandleFunc("GET /api/sparkdx/v1/shard", s.apiShard)
	m.HandleFunc("/api/sparkdx/", func(w http.ResponseWriter, r *http.Request) {
		jsonError(w, http.StatusNotFound, "unknown resource: "+r.URL.Path)
	})
	m.Handle("POST /v1/metrics", s.otlp)
	web.New(web.Config{Source: source{s}, Ingest: s.cfg.Ingest, Store: s.cfg.Store, Cache: s.cache,
		StuckAfter: stuckAfter, Logger: s.cfg.Logger, Now: s.cfg.Now, Jobs: source{s}, Profiles: s.cfg.Profiles}).Routes(m)
}

// ServeHTTP implements http.Handler: auth, then routing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !s.cfg.Hosts.Allowed(r.Host) {
		jsonError(w, http.StatusForbidden, "Host "+strconv.Quote(r.Host)+" is not allowed (DNS rebinding guard): add it with --allowed-hosts")
		return
	}
	if s.cfg.AuthToken != "" && r.Method == http.MethodGet && r.URL.Query().Get("token") != "" {
		s.tokenLogin(w, r)
		return
	}
	if s.cfg.AuthToken != "" && r.URL.Path != "/healthz" && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sparkdx"`)
		jsonError(w, http.StatusUnauthorized, "missing or wrong bearer token")
		return
	}
	if s.peers != nil && s.peers.Redirect(w, r, s.knows) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// authorized accepts the bearer token in the Authorization header (API
// clients) or in the cookie tokenLogin sets (browsers).
func (s *Server) authorized(r *http.Request) bool {
	return access.Bearer(r, s.cfg.AuthToken, tokenCookie)
}

const tokenCookie = "sparkdx_token"

// tokenLogin lets a browser open /?token=T once: a right token becomes an
// HttpOnly same-site cookie and the URL loses it.
func (s *Server) tokenLogin(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tok := q.Get("token")
	if !access.Equal(tok, s.cfg.AuthToken) {
		jsonError(w, http.StatusUnauthorized, "missing or wrong bearer token")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	q.Del("token")
	http.Redirect(w, r, localURI(r.URL, q), http.StatusSeeOther)
}

// localURI is u's path with query q as a redirect target on this server
// only: a path of "//evil.example.com/" (or /\evil…, which browsers read
// alike) names a host to a browser, so leading slashes and backslashes
// collapse to one slash.
func localURI(u *url.URL, q url.Values) string {
	p := "/" + strings.TrimLeft(u.EscapedPath(), "/\\")
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p
}

// stuckAfter is how long a change of a log may wait to be read before
// /healthz calls ingest degraded.
const stuckAfter = 5 * time.Minute

// healthz answers 200 while the server runs (a liveness probe must not
// restart it for a bad log): "status" is "ok", or "degraded" with the
// problems — store or Delta writes failing (a full disk), a root that
// cannot be listed, a failed log, a log waiting longer than stuckAfter.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	st := s.cfg.Ingest.Status()
	body := map[string]any{"status": "ok", "ingest": st}
	var problems []string
	if p := s.cfg.Store.Writes().Problem("store (--data)"); p != "" {
		problems = append(problems, p)
	}
	if s.cfg.Exports != nil {
		problems = append(problems, s.cfg.Exports.Problems()...)
	}
	if problems = append(problems, s.cfg.Ingest.Logs().Problems(stuckAfter)...); len(problems) > 0 {
		if len(problems) > 20 {
			problems = append(problems[:20], fmt.Sprintf("... %d more (/api/sparkdx/v1/logs)", len(problems)-20))
		}
		body["status"], body["problems"] = "degraded", problems
	}
	writeJSON(w, http.StatusOK, body)
}

// apiLogs lists every log with its state, every entry of a log directory
// that was passed over and why, and every root with its listing error.
func (s *Server) apiLogs(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.cfg.Ingest.Logs())
}

func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.cfg.Ingest.Status())
}

// apiError is the body of every /api/sparkdx error.
type apiError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

func jsonError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg, Status: status})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// Compact: a list of thousands of applications is encoded twice as
	// fast as indented (pipe it through jq to read it).
	json.NewEncoder(w).Encode(v)
}
