// Package web is sparkdx serve's web UI: one file per page (the fleet,
// an application, its stages, tasks, jobs, executors, environment and SQL
// queries, runs, recurring jobs' histories, the comparison of two applications, the recipes, the
// logs), the app page's stored view, and the page cache's rules for
// finished applications. It reads what the server keeps through Source,
// the models through package ingest, and renders package ui's templates;
// it owns no state but the parsed templates.
package web

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/pagecache"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/server/web/ui"
)

// Source is what the pages read of what the server keeps.
type Source interface {
	// Summaries are this instance's application attempts, newest start
	// first (shared: not to be changed).
	Summaries() []fleet.AppSummary
	// Fleet is the whole fleet's: this instance's and its peers'.
	Fleet(ctx context.Context) fleet.View
	// App is an application with every attempt's model, read-locked
	// until release is called.
	App(ctx context.Context, appID string) (app *model.App, release func(), err error)
	// Diff is the sparkdx.diff/v1 document of two applications' newest
	// attempts, or an error with its HTTP status.
	Diff(ctx context.Context, a, b string) ([]byte, int, error)
}

// Config configures the Pages.
type Config struct {
	Source Source
	Ingest *ingest.Ingester
	Store  *store.Store
	// Cache keeps rendered pages (shared with the server's API lists).
	Cache *pagecache.Cache
	// StuckAfter is how long a change of a log may wait to be read before
	// the logs page calls it stuck (as /healthz does).
	StuckAfter time.Duration
	Logger     *slog.Logger
	Now        func() time.Time
	// Jobs are the recurring jobs' histories (the /jobs pages); none
	// when nil.
	Jobs JobSource
	// Profiles is a directory of CPU profiles named by application id
	// (profile.AppFiles): the app, stage and executors pages draw their
	// flame graphs.
	Profiles string
}

// Pages serves the web UI.
type Pages struct {
	cfg   Config
	pages pages
}

// New returns the Pages of cfg.
func New(cfg Config) *Pages {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Pages{cfg: cfg}
}

// pages holds the parsed templates.
type pages struct {
	once sync.Once
	t    *template.Template
	err  error
}

// Routes adds the pages to m.
func (s *Pages) Routes(m *http.ServeMux) {
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(ui.Static())))
	m.HandleFunc("GET /static/flame.js", flameScript)
	m.HandleFunc("GET /{$}", s.fleetPage)
	m.HandleFunc("GET /apps/{id}", s.appPage)
	m.HandleFunc("GET /apps/{id}/stages/{stage}/{attempt}", s.finishedPage(s.stagePage, true))
	m.HandleFunc("GET /apps/{id}/stages/{stage}/{attempt}/tasks/{task}", s.finishedPage(s.taskPage, false))
	m.HandleFunc("GET /apps/{id}/jobs", s.finishedPage(s.jobsPage, false))
	m.HandleFunc("GET /apps/{id}/jobs/{job}", s.finishedPage(s.jobPage, false))
	m.HandleFunc("GET /apps/{id}/environment", s.finishedPage(s.environmentPage, false))
	m.HandleFunc("GET /apps/{id}/executors", s.finishedPage(s.executorsPage, true))
	m.HandleFunc("GET /apps/{id}/sql", s.finishedPage(s.sqlListPage, false))
	m.HandleFunc("GET /apps/{id}/sql/{query}", s.finishedPage(s.sqlQueryPage, false))
	m.HandleFunc("GET /jobs", s.jobListPage)
	m.HandleFunc("GET /jobs/{job}", s.jobHistoryPage)
	m.HandleFunc("GET /runs", s.runsPage)
	m.HandleFunc("GET /runs/{run}", s.runDetailPage)
	m.HandleFunc("GET /compare", s.comparePage)
	m.HandleFunc("GET /recipes/{path...}", s.recipePage)
	m.HandleFunc("GET /logs", s.logsPage)
}

func (s *Pages) render(w http.ResponseWriter, status int, name string, data any) {
	body, err := s.renderBytes(name, data)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeHTML(w, status, body)
}

func (s *Pages) renderBytes(name string, data any) ([]byte, error) {
	s.pages.once.Do(func() { s.pages.t, s.pages.err = ui.Templates() })
	if s.pages.err != nil {
		return nil, s.pages.err
	}
	var buf bytes.Buffer
	if err := s.pages.t.ExecuteTemplate(&buf, name, data); err != nil {
		s.cfg.Logger.Error("render", "page", name, "err", err)
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

func writeHTML(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
	w.WriteHeader(status)
	w.Write(body)
}

func (s *Pages) errorPage(w http.ResponseWriter, status int, title, msg string) {
	s.render(w, status, "error.html", map[string]any{"Title": title, "Error": msg, "Live": false})
}

// attemptsOf returns the summaries of one application, newest first.
func (s *Pages) attemptsOf(appID string) []fleet.AppSummary {
	return fleet.AttemptsOf(s.cfg.Source.Summaries(), appID)
}
