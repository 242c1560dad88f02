package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// historyAPI serves /api/v1/... as the Spark History Server does: the
// application list from the index, everything about one application from
// its replayed model.
func (s *Server) historyAPI(w http.ResponseWriter, r *http.Request) {
	p := strings.Trim(strings.TrimPrefix(r.URL.Path, "/api/v1/"), "/")
	seg := strings.Split(p, "/")
	now := func() int64 { return s.cfg.Now().UnixMilli() }
	if len(seg) < 2 || seg[0] != "applications" {
		// The application list and /version come from the index: cache
		// them until it changes.
		version, ckey := s.cfg.Ingest.Version(), "api1|"+r.URL.Path+"?"+r.URL.RawQuery
		if body, ok := s.cache.get(ckey, version, fleetTTL); ok && r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
			return
		}
		api := historyapi.New(s.skeletonApps())
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
		s.cache.put(ckey, version, body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
		return
	}
	if seg[len(seg)-1] == "logs" && !s.cfg.RawLogs {
		// Raw logs hold whatever Spark did not redact; serving them is a choice.
		http.Error(w, "raw event logs are not served (start sparkdx serve with --serve-raw-logs)", http.StatusForbidden)
		return
	}
	if b, ok := s.storedAPI(p, r.URL.RawQuery); ok {
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
	apps, err := filter(s.summaries(), r.URL.Query())
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	if apps == nil {
		apps = []AppSummary{}
	}
	writeJSON(w, http.StatusOK, apps)
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
	a, ok := pick(s.attemptsOf(appID), attemptID)
	if !ok {
		return nil, http.StatusNotFound, errors.New("unknown app: " + appID)
	}
	b, err := s.cfg.Ingest.Report(r.Context(), a.key)
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
	w.Write(b)
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

// FleetFinding is one finding of one application.
type FleetFinding struct {
	AppID     string `json:"appId"`
	AttemptID string `json:"attemptId,omitempty"`
	AppName   string `json:"appName"`
	Finding
}

func (s *Server) apiFindings(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	apps, err := filter(s.summaries(), q)
	if err != nil {
		jsonError(w, http.StatusBadRequest, err.Error())
		return
	}
	out := []FleetFinding{}
	for _, a := range apps {
		for _, f := range a.Findings {
			if rule := q.Get("rule"); rule != "" && f.Rule != rule {
				continue
			}
			if sev := q.Get("severity"); sev != "" && severityRank[f.Severity] < severityRank[sev] {
				continue
			}
			out = append(out, FleetFinding{AppID: a.ID, AttemptID: a.AttemptID, AppName: a.Name, Finding: f})
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
	d, status, err := s.diff(r, q.Get("a"), q.Get("b"))
	if err != nil {
		jsonError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// reportDoc is the part of sparkdx.report/v1 a diff compares.
type reportDoc struct {
	App struct {
		ID         string `json:"id"`
		Name       string `json:"name"`
		DurationMs int64  `json:"durationMs"`
	} `json:"app"`
	Phases map[string]int64 `json:"phases"`
	Stages []struct {
		StageID           int    `json:"stageId"`
		Name              string `json:"name"`
		DurationMs        int64  `json:"durationMs"`
		NumTasks          int    `json:"numTasks"`
		ShuffleReadBytes  int64  `json:"shuffleReadBytes"`
		ShuffleWriteBytes int64  `json:"shuffleWriteBytes"`
		InputBytes        int64  `json:"inputBytes"`
		GCTimeMs          int64  `json:"gcTimeMs"`
	} `json:"stages"`
	Executors []json.RawMessage `json:"executors"`
	Findings  []Finding         `json:"findings"`
}

// Diff compares two applications' reports.
type Diff struct {
	A        DiffSide         `json:"a"`
	B        DiffSide         `json:"b"`
	Delta    map[string]int64 `json:"delta"` // B minus A
	Added    []Finding        `json:"findingsAdded"`
	Resolved []Finding        `json:"findingsResolved"`
	Stages   []StageDiff      `json:"stages"`
}

// PhaseRow compares one phase.
type PhaseRow struct {
	Label string
	A, B  int64
	Delta int64
}

// PhaseRows compares the phases of both sides, in display order.
func (d *Diff) PhaseRows() []PhaseRow {
	var out []PhaseRow
	for _, p := range phaseOrder {
		a, b := d.A.Phases[p.Name], d.B.Phases[p.Name]
		if a != 0 || b != 0 {
			out = append(out, PhaseRow{Label: p.Label, A: a, B: b, Delta: b - a})
		}
	}
	return out
}

// DiffSide is one side of a Diff.
type DiffSide struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	DurationMs  int64            `json:"durationMs"`
	Stages      int              `json:"stages"`
	Tasks       int              `json:"tasks"`
	Executors   int              `json:"executors"`
	ShuffleRead int64            `json:"shuffleReadBytes"`
	InputBytes  int64            `json:"inputBytes"`
	GCTimeMs    int64            `json:"gcTimeMs"`
	Phases      map[string]int64 `json:"phases,omitempty"`
}

// StageDiff pairs stages by id; -1 marks a stage one side did not run.
type StageDiff struct {
	StageID     int    `json:"stageId"`
	Name        string `json:"name"`
	ADurationMs int64  `json:"aDurationMs"`
	BDurationMs int64  `json:"bDurationMs"`
}

func (s *Server) diff(r *http.Request, a, b string) (*Diff, int, error) {
	var docs [2]reportDoc
	for i, id := range []string{a, b} {
		raw, status, err := s.report(r, id, "")
		if err != nil {
			return nil, status, err
		}
		if err := json.Unmarshal(raw, &docs[i]); err != nil {
			return nil, http.StatusInternalServerError, err
		}
	}
	side := func(d *reportDoc) DiffSide {
		x := DiffSide{ID: d.App.ID, Name: d.App.Name, DurationMs: d.App.DurationMs, Stages: len(d.Stages),
			Executors: len(d.Executors), Phases: d.Phases}
		for _, st := range d.Stages {
			x.Tasks += st.NumTasks
			x.ShuffleRead += st.ShuffleReadBytes
			x.InputBytes += st.InputBytes
			x.GCTimeMs += st.GCTimeMs
		}
		return x
	}
	d := &Diff{A: side(&docs[0]), B: side(&docs[1]), Added: []Finding{}, Resolved: []Finding{}, Stages: []StageDiff{}}
	d.Delta = map[string]int64{"durationMs": d.B.DurationMs - d.A.DurationMs, "stages": int64(d.B.Stages - d.A.Stages),
		"tasks": int64(d.B.Tasks - d.A.Tasks), "shuffleReadBytes": d.B.ShuffleRead - d.A.ShuffleRead,
		"inputBytes": d.B.InputBytes - d.A.InputBytes, "gcTimeMs": d.B.GCTimeMs - d.A.GCTimeMs}
	d.Added = findingsMinus(docs[1].Findings, docs[0].Findings)
	d.Resolved = findingsMinus(docs[0].Findings, docs[1].Findings)
	// Stages pair by id; a stage only one side ran shows -1 on the other.
	aStages, bStages := map[int]int64{}, map[int]int64{}
	for _, st := range docs[0].Stages {
		aStages[st.StageID] += st.DurationMs
	}
	for _, st := range docs[1].Stages {
		bStages[st.StageID] += st.DurationMs
	}
	seen := map[int]bool{}
	for _, doc := range docs {
		for _, st := range doc.Stages {
			if seen[st.StageID] {
				continue
			}
			seen[st.StageID] = true
			sd := StageDiff{StageID: st.StageID, Name: st.Name, ADurationMs: -1, BDurationMs: -1}
			if v, ok := aStages[st.StageID]; ok {
				sd.ADurationMs = v
			}
			if v, ok := bStages[st.StageID]; ok {
				sd.BDurationMs = v
			}
			d.Stages = append(d.Stages, sd)
		}
	}
	return d, http.StatusOK, nil
}

func findingsMinus(a, b []Finding) []Finding {
	out := []Finding{}
	for _, f := range a {
		if !hasRule(b, f.Rule) {
			out = append(out, f)
		}
	}
	return out
}
