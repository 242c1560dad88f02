package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/pagecache"
	"github.com/sparkdx/sparkdx/internal/server/peers"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// historyAPI serves /api/v1/... as the Spark History Server does: the
// application list from the index, everything about one application from
// its replayed model.
func (s *Server) historyAPI(w http.ResponseWriter, r *http.Request) {
	// Segments unescaped one by one: an id holding "/" comes as %2F.
	seg := historyapi.Segments(r.URL.EscapedPath())
	now := func() int64 { return s.cfg.Now().UnixMilli() }
	w.Header().Set("Server", historyapi.ServerHeader())
	if len(seg) < 2 || seg[0] != "applications" {
		// The application list and /version come from the index (and
		// the peers'): cache them until it changes.
		var f fleet.View
		if seg[0] == "applications" {
			// The peers are asked for the list only: /version answers
			// readiness probes, which must not wait for them.
			f = s.fleetApps(r.Context())
			fleet.MarkDown(w, f.Down)
		}
		version, ckey := s.cfg.Ingest.Version(), "api1|"+strconv.FormatUint(f.Gen, 10)+"|"+r.URL.Path+"?"+pagecache.ParamKey(r.URL.Query(), pagecache.HistoryListParams...)
		if body, _, ok := s.cache.Get(ckey, version, pagecache.FleetTTL); ok && r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
			return
		}
		api := historyapi.New(skeletonApps(append(s.cfg.Ingest.Records(), f.Records...)))
		api.Now = now
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			api.ServeHTTP(w, r) // its method error
			return
		}
		v, err := api.Get(r.URL.RequestURI())
		if err != nil {
			http.Error(w, err.Error(), historyapi.StatusOf(err))
			return
		}
		body := historyapi.Marshal(v)
		s.cache.Put(ckey, version, body, "")
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
		return
	}
	if seg[len(seg)-1] == "logs" && !s.cfg.RawLogs {
		// Raw logs hold whatever Spark did not redact; serving them is a choice.
		http.Error(w, "raw event logs are not served (start sparkdx serve with --serve-raw-logs)", http.StatusForbidden)
		return
	}
	if b, ok := s.storedAPI(seg, r.URL.RawQuery); ok {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	app, release, err := s.fullApp(r.Context(), seg[1])
	if errors.Is(err, errUnknownApp) {
		http.Error(w, "unknown app: "+seg[1], http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer release()
	api := historyapi.New([]*model.App{app})
	api.Now = now
	api.Files = s.cfg.Ingest.LogFiles // raw logs on S3 too
	api.ServeHTTP(w, r)
}

func (s *Server) apiApps(w http.ResponseWriter, r *http.Request) {
	f := s.fleetApps(r.Context())
	fleet.MarkDown(w, f.Down)
	// Cached as the History Server list is: an unpaged list of a fleet of
	// 100,000 applications takes a second to encode.
	version, ckey := s.cfg.Ingest.Version(), "apps|"+strconv.FormatUint(f.Gen, 10)+"|"+pagecache.ParamKey(r.URL.Query(), pagecache.AppListParams...)
	if body, total, ok := s.cache.Get(ckey, version, pagecache.FleetTTL); ok {
		w.Header().Set("X-Total-Count", total)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
		return
	}
	apps, l, err := fleet.AppList(f.Apps, r.URL.Query(), 0)
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	total := strconv.Itoa(l.Total)
	body, err := json.Marshal(apps)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, err.Error())
		return
	}
	body = append(body, '\n') // as writeJSON's encoder ends it
	s.cache.Put(ckey, version, body, total)
	w.Header().Set("X-Total-Count", total)
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func (s *Server) apiApp(w http.ResponseWriter, r *http.Request) {
	atts := s.attemptsOf(r.PathValue("id"))
	if len(atts) == 0 {
		jsonError(w, http.StatusNotFound, "unknown app: "+r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, atts)
}

// report returns the sparkdx.report/v1 JSON of an application attempt.
func (s *Server) report(r *http.Request, appID, attemptID string) ([]byte, int, error) {
	a, ok := fleet.Pick(s.attemptsOf(appID), attemptID)
	if !ok {
		return nil, http.StatusNotFound, errors.New("unknown app: " + appID)
	}
	b, err := s.cfg.Ingest.Report(r.Context(), a.Key())
	if errors.Is(err, store.ErrNotFound) {
		return nil, http.StatusNotFound, errors.New("no report for " + appID)
	}
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	return b, http.StatusOK, nil
}

func (s *Server) apiReport(w http.ResponseWriter, r *http.Request) {
	b, status, err := s.report(r, r.PathValue("id"), r.URL.Query().Get("attempt"))
	if err != nil {
		jsonError(w, status, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(s.pricedReport(b))
}

func (s *Server) apiSamples(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if len(s.attemptsOf(id)) == 0 {
		jsonError(w, http.StatusNotFound, "unknown app: "+id)
		return
	}
	xs, err := s.cfg.Store.Samples(id)
	if err != nil {
		jsonError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if xs == nil {
		xs = []store.Sample{}
	}
	writeJSON(w, http.StatusOK, xs)
}

func (s *Server) apiFindings(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := s.fleetApps(r.Context())
	fleet.MarkDown(w, f.Down)
	apps, err := fleet.Filter(f.Apps, q)
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	out := []fleet.FleetFinding{}
	for _, a := range apps {
		for _, f := range a.Findings {
			if rule := q.Get("rule"); rule != "" && f.Rule != rule {
				continue
			}
			if sev := q.Get("severity"); sev != "" && fleet.SeverityRank(f.Severity) < fleet.SeverityRank(sev) {
				continue
			}
			out = append(out, fleet.FleetFinding{AppID: a.ID, AttemptID: a.AttemptID, AppName: a.Name, Finding: f})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiDiff(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("a") == "" || q.Get("b") == "" {
		jsonError(w, http.StatusBadRequest, "diff needs ?a=APP_ID&b=APP_ID")
		return
	}
	b, status, err := s.diffJSON(r.Context(), q.Get("a"), q.Get("b"))
	if err != nil {
		jsonError(w, status, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// diffJSON is the sparkdx.diff/v1 document comparing the newest attempts of
// two applications exactly as `sparkdx diff` does (diff.Compare: stages
// matched by Spark's call site in submission order, each pair saying how
// it was matched). Each side is a whole analysis (about 100 ms of CPU for
// the big NDS log), so the document of two finished attempts is kept
// until either log or either driver's agent samples change.
func (s *Server) diffJSON(ctx context.Context, a, b string) ([]byte, int, error) {
	var sums [2]fleet.AppSummary
	var key strings.Builder
	key.WriteString("diff")
	cached := true
	for i, id := range []string{a, b} {
		sum, ok := fleet.Pick(s.attemptsOf(id), "")
		if !ok {
			return nil, http.StatusNotFound, errors.New("unknown app: " + id)
		}
		sums[i] = sum
		if cached = cached && sum.FinishedKey(&key); cached {
			n := 0
			if xs, err := s.cfg.Store.ExecutorSamples(sum.ID, "driver"); err == nil {
				n = len(xs)
			}
			fmt.Fprintf(&key, "|%d", n)
		}
	}
	ckey := ""
	if cached {
		ckey = key.String()
		if body, _, ok := s.cache.Get(ckey, 0, 0); ok {
			return body, http.StatusOK, nil
		}
	}
	var in [2]diff.Input
	for i, sum := range sums {
		att, release, err := s.cfg.Ingest.Attempt(ctx, sum.Key())
		if err != nil {
			return nil, http.StatusInternalServerError, err
		}
		an := Analyze(s.cfg.Store, ingest.Input{Attempt: att, InProgress: sum.Status == "running", Now: s.cfg.Now()})
		release()
		in[i] = diff.Input{Report: an.Report, Result: an.Result}
	}
	body, err := json.Marshal(diff.Compare(in[0], in[1]))
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	if ckey != "" {
		s.cache.Put(ckey, 0, body, "")
	}
	return body, http.StatusOK, nil
}

func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) {
	p, err := fleet.RunList(s.summaries(), r.URL.Query())
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(p.Total))
	writeJSON(w, http.StatusOK, p.Runs)
}

func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) {
	d, ok := fleet.Detail(s.summaries(), r.PathValue("run"), s.cfg.Store.Samples)
	if !ok {
		jsonError(w, http.StatusNotFound, "unknown run: "+r.PathValue("run"))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// apiShard answers a peer: this instance's own applications.
func (s *Server) apiShard(w http.ResponseWriter, r *http.Request) {
	l := peers.ShardList{Shard: s.cfg.Peers.Shard.String(), Apps: s.summaries(), Keys: []string{}, Records: []store.LogRecord{}}
	if l.Apps == nil {
		l.Apps = []fleet.AppSummary{}
	}
	for _, a := range l.Apps {
		l.Keys = append(l.Keys, a.Key())
	}
	for _, rec := range s.cfg.Ingest.Records() {
		if rec.AppID != "" {
			l.Records = append(l.Records, rec)
		}
	}
	writeJSON(w, http.StatusOK, l)
}
