package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/server/ui"
)

// pages holds the parsed templates.
type pages struct {
	once sync.Once
	t    *template.Template
	err  error
}

func (s *Server) uiRoutes(m *http.ServeMux) {
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(ui.Static())))
	m.HandleFunc("GET /{$}", s.fleetPage)
	m.HandleFunc("GET /apps/{id}", s.appPage)
	m.HandleFunc("GET /apps/{id}/stages/{stage}/{attempt}", s.finishedPage(s.stagePage, false))
	m.HandleFunc("GET /apps/{id}/stages/{stage}/{attempt}/tasks/{task}", s.finishedPage(s.taskPage, false))
	m.HandleFunc("GET /apps/{id}/jobs", s.finishedPage(s.jobsPage, false))
	m.HandleFunc("GET /apps/{id}/jobs/{job}", s.finishedPage(s.jobPage, false))
	m.HandleFunc("GET /apps/{id}/environment", s.finishedPage(s.environmentPage, false))
	m.HandleFunc("GET /apps/{id}/executors", s.finishedPage(s.executorsPage, true))
	m.HandleFunc("GET /apps/{id}/sql", s.finishedPage(s.sqlListPage, false))
	m.HandleFunc("GET /apps/{id}/sql/{query}", s.finishedPage(s.sqlQueryPage, false))
	m.HandleFunc("GET /runs", s.runsPage)
	m.HandleFunc("GET /runs/{run}", s.runDetailPage)
	m.HandleFunc("GET /compare", s.comparePage)
	m.HandleFunc("GET /recipes/{path...}", s.recipePage)
	m.HandleFunc("GET /logs", s.logsPage)
}

// logsPage shows every log with its state and every entry passed over
// with its reason (what /api/sparkdx/v1/logs answers).
func (s *Server) logsPage(w http.ResponseWriter, r *http.Request) {
	ls := s.cfg.Ingest.Logs()
	s.render(w, http.StatusOK, "logs.html", map[string]any{"Title": "Event logs", "Live": false,
		"Status": ls, "Problems": ls.Problems(stuckAfter)})
}

func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	body, err := s.renderBytes(name, data)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeHTML(w, status, body)
}

func (s *Server) renderBytes(name string, data any) ([]byte, error) {
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

func (s *Server) errorPage(w http.ResponseWriter, status int, title, msg string) {
	s.render(w, status, "error.html", map[string]any{"Title": title, "Error": msg, "Live": false})
}

// PhaseItem is one segment of a phase bar.
type PhaseItem struct {
	Name, Label string
	Ms          int64
}

var phaseOrder = []PhaseItem{{Name: "resourceWaitMs", Label: "resource wait"}, {Name: "computeMs", Label: "compute"},
	{Name: "outputWriteMs", Label: "output write"}, {Name: "driverOnlyMs", Label: "driver only"}}

// PhaseList is the phases in display order.
func (a AppSummary) PhaseList() []PhaseItem {
	var out []PhaseItem
	for _, p := range phaseOrder {
		if ms := a.Phases[p.Name]; ms > 0 {
			p.Ms = ms
			out = append(out, p)
		}
	}
	return out
}

// PhaseTotal is the sum of the phases.
func (a AppSummary) PhaseTotal() int64 {
	var t int64
	for _, p := range a.PhaseList() {
		t += p.Ms
	}
	return t
}

func (s *Server) fleetPage(w http.ResponseWriter, r *http.Request) {
	version := s.cfg.Ingest.Version()
	f := s.fleetApps(r.Context())
	markDown(w, f.down)
	ckey := "fleet|" + strconv.FormatUint(f.gen, 10) + "?" + paramKey(r.URL.Query(), appListParams...)
	if body, _, ok := s.cache.get(ckey, version, fleetTTL); ok {
		writeHTML(w, http.StatusOK, body)
		return
	}
	all := f.apps
	q := r.URL.Query()
	apps, l, err := appList(all, q, fleetPageLength)
	data := map[string]any{"Title": "Fleet", "Apps": apps, "Total": len(all), "Matched": l.Total, "Offset": l.Offset,
		"Q": flat(q), "Statuses": []string{"running", "completed", "incomplete"}, "Status": s.cfg.Ingest.Status(), "Sorts": fleetSorts}
	data["Prev"], data["Next"] = pageLinks("/", onlyParams(q, appListParams...), l) // cached: no other parameter
	data["PeersDown"] = f.down
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
	s.cache.put(ckey, version, body, "")
	writeHTML(w, http.StatusOK, body)
}

// compareOffered is how many application ids the Compare page offers.
const compareOffered = 500

// fleetSorts are the fleet page's orders (?sort= of the apps API).
var fleetSorts = []struct{ Key, Label string }{{"-start", "newest"}, {"start", "oldest"}, {"-duration", "longest"},
	{"-severity", "worst finding"}, {"-tasks", "most tasks"}, {"name", "name"}, {"user", "user"}}

// fleetPageLength is how many application attempts a fleet page lists.
const fleetPageLength = 100

func flat(q url.Values) map[string]string {
	m := map[string]string{}
	for _, k := range []string{"q", "user", "status", "rule", "tag", "run", "from", "to", "sort"} {
		m[k] = q.Get(k)
	}
	return m
}

func (s *Server) appPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	atts := s.attemptsOf(id)
	sum, ok := pick(atts, r.URL.Query().Get("attempt"))
	if !ok {
		s.errorPage(w, http.StatusNotFound, "Unknown application", "No application attempt "+id+" is indexed.")
		return
	}
	samples := s.memorySamples(id)
	// A finished app's page changes only with its log, its attempts and
	// agent samples.
	ckey := ""
	if sum.Status != "running" {
		ckey = fmt.Sprintf("app|%s|%d|%d|%d", sum.key, sum.LastUpdated, len(atts), len(samples))
		if body, _, ok := s.cache.get(ckey, 0, 0); ok {
			writeHTML(w, http.StatusOK, body)
			return
		}
	}
	v, err := s.appView(r.Context(), sum)
	if err != nil {
		s.errorPage(w, http.StatusServiceUnavailable, "Not ready", err.Error())
		return
	}
	for _, o := range atts {
		if o.key != sum.key {
			v.Others = append(v.Others, o)
		}
	}
	if sum.Phases == nil {
		sum.Phases = v.Phases
	}
	v.Sum, v.Title, v.Live = sum, sum.Name, sum.Status == "running"
	v.withSamples(samples)
	body, err := s.renderBytes("app.html", v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if ckey != "" {
		s.cache.put(ckey, 0, body, "")
	}
	writeHTML(w, http.StatusOK, body)
}

// appView is the stored view of a finished log, or one computed now from
// the model of a running one.
func (s *Server) appView(ctx context.Context, sum AppSummary) (*appView, error) {
	if sum.Status != "running" {
		if b, err := s.cfg.Ingest.View(sum.key, "page"); err == nil {
			var v appView
			if err := json.Unmarshal(b, &v); err == nil {
				return &v, nil
			}
		}
	}
	a, release, err := s.cfg.Ingest.Attempt(ctx, sum.key)
	if err != nil {
		return nil, err
	}
	defer release()
	running := sum.Status == "running"
	var mod time.Time
	if sum.fileMod > 0 {
		mod = time.UnixMilli(sum.fileMod)
	}
	live := pipeline.LiveNow(a, pipeline.Source{InProgress: running, ModTime: mod, Now: s.cfg.Now()})
	return buildAppView(a, analyze.AnalyzeAt(a, live), running, s.cfg.Now().UnixMilli()), nil
}

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	// The ids offered: the applications started last (the summaries come
	// newest first); any other id can be typed.
	seen := map[string]bool{}
	var apps []*AppSummary
	for i, all := 0, s.summaries(); i < len(all) && len(apps) < compareOffered; i++ {
		if a := &all[i]; !seen[a.ID] {
			seen[a.ID] = true
			apps = append(apps, a)
		}
	}
	q := r.URL.Query()
	data := map[string]any{"Title": "Compare", "Apps": apps, "A": q.Get("a"), "B": q.Get("b"), "Live": false}
	if q.Get("a") != "" && q.Get("b") != "" {
		var d diff.Diff
		b, _, err := s.diffJSON(r, q.Get("a"), q.Get("b"))
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

// phaseSums adds up a timeline per phase, in the report's field names.
func phaseSums(tl []analyze.Interval) map[string]int64 {
	names := map[analyze.Phase]string{analyze.PhaseResourceWait: "resourceWaitMs", analyze.PhaseCompute: "computeMs",
		analyze.PhaseOutputWrite: "outputWriteMs", analyze.PhaseDriverOnly: "driverOnlyMs"}
	m := map[string]int64{}
	for _, iv := range tl {
		m[names[iv.Phase]] += iv.End - iv.Start
	}
	return m
}
