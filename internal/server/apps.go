package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// Finding is the part of a report finding the fleet views use.
type Finding struct {
	Rule        string          `json:"rule"`
	Severity    string          `json:"severity"`
	Title       string          `json:"title"`
	Detail      string          `json:"detail,omitempty"`
	Recipe      string          `json:"recipe,omitempty"`
	StageIDs    []int           `json:"stageIds,omitempty"`
	ExecutorIDs []string        `json:"executorIds,omitempty"`
	Evidence    json.RawMessage `json:"evidence,omitempty"`
	// Cost and Parts are the report's: what the problem cost, and the
	// stages or executors a folded finding covers.
	Cost  *diagnose.Cost  `json:"cost,omitempty"`
	Parts []diagnose.Part `json:"parts,omitempty"`
}

// CostText says the cost the way every report does; "" when unknown.
func (f Finding) CostText() string { return f.Cost.String() }

// SQLID is the SQL query a finding names in its evidence (sqlId), or nil.
func (f Finding) SQLID() *int64 {
	var e struct {
		SQLID *int64 `json:"sqlId"`
	}
	if len(f.Evidence) == 0 || json.Unmarshal(f.Evidence, &e) != nil {
		return nil
	}
	return e.SQLID
}

// AppSummary is one application attempt as the fleet views show it.
type AppSummary struct {
	ID         string           `json:"id"`
	AttemptID  string           `json:"attemptId,omitempty"`
	Name       string           `json:"name"`
	User       string           `json:"user"`
	Status     string           `json:"status"` // running | completed | incomplete
	StartTime  int64            `json:"startTime"`
	EndTime    int64            `json:"endTime"` // -1 while running
	DurationMs int64            `json:"durationMs"`
	Tags       []string         `json:"tags"`
	Run        *store.Run       `json:"run,omitempty"`
	Stages     int              `json:"stages"`
	Tasks      int              `json:"tasks"`
	Events     int64            `json:"events"`
	Phases     map[string]int64 `json:"phases,omitempty"`
	Findings   []Finding        `json:"findings"`
	Worst      *Finding         `json:"worstFinding"`
	// Outcome is the report's outcome (reportv1.Outcome): whether a job
	// failed, which, and what failed it; nil before the first analysis.
	Outcome *reportv1.Outcome `json:"outcome,omitempty"`
	Log     string            `json:"log"`
	// LastUpdated is when the log last changed (epoch ms).
	LastUpdated int64 `json:"lastUpdated"`
	key         string
	search      string // name and id in lower case, what ?q= searches
	// fileMod is the log file's own modification time (epoch ms; 0 when
	// unknown): what says a log still being written is live.
	fileMod int64
}

// cachedSummary is the report-derived part of a log's summary.
type cachedSummary struct {
	modTime  int64
	phases   map[string]int64
	findings []Finding
	outcome  *reportv1.Outcome

	live       bool      // analysed while running
	analysed   time.Time // when the live analysis ran
	refreshing bool      // a live analysis runs
}

// liveEvery bounds how often a running application is analysed again for
// the fleet views, however fast its log grows.
const liveEvery = 5 * time.Second

var severityRank = map[string]int{"info": 1, "warning": 2, "critical": 3}

func statusOf(r store.LogRecord) string {
	switch {
	case r.Completed:
		return "completed"
	case r.Done:
		return "incomplete"
	default:
		return "running"
	}
}

// summaryList is a list summaries() built: for the ingest version it saw,
// at a time (a running application's duration runs to now).
type summaryList struct {
	version uint64
	built   time.Time
	running bool
	apps    []AppSummary
}

// summaries returns every application attempt known, newest start first.
// The list is shared by the requests of one ingest version (callers must
// not change it); while an application runs it is built again once it is
// a second old, so that running durations keep up with the clock.
func (s *Server) summaries() []AppSummary { return s.summaryList().apps }

// summaryList is summaries() with when and for which ingest version it
// was built.
func (s *Server) summaryList() summaryList {
	v, now := s.cfg.Ingest.Version(), s.cfg.Now()
	s.sumMu.Lock()
	c := s.list
	s.sumMu.Unlock()
	if c.apps != nil && c.version == v && (!c.running || now.Sub(c.built) < time.Second) {
		return c
	}
	apps := s.buildSummaries()
	c = summaryList{version: v, built: now, apps: apps}
	for _, a := range apps {
		c.running = c.running || a.Status == "running"
	}
	s.sumMu.Lock()
	s.list = c
	s.sumMu.Unlock()
	return c
}

// buildSummaries makes summaries' list from ingest's records.
func (s *Server) buildSummaries() []AppSummary {
	recs := s.cfg.Ingest.Records()
	now := s.cfg.Now().UnixMilli()
	out := make([]AppSummary, 0, len(recs))
	for _, r := range recs {
		if r.AppID == "" {
			continue
		}
		a := AppSummary{ID: r.AppID, AttemptID: r.AttemptID, Name: r.AppName, User: r.User, Status: statusOf(r),
			StartTime: r.StartTime, EndTime: r.EndTime, Tags: r.Tags, Run: r.Run, Stages: r.Stages, Tasks: r.Tasks,
			Events: r.Events, Log: r.Name, LastUpdated: r.LastUpdated, key: r.Key, fileMod: r.ModTime / 1e6, Findings: []Finding{},
			search: strings.ToLower(r.AppName + "\x00" + r.AppID)}
		if a.Tags == nil {
			a.Tags = []string{}
		}
		switch {
		case r.Completed:
			a.DurationMs = r.EndTime - r.StartTime
		case r.StartTime > 0 && a.Status == "running" && a.fileMod > 0 &&
			now-a.fileMod <= pipeline.LiveWithin.Milliseconds() &&
			now-r.LastEvent <= pipeline.LiveWithin.Milliseconds():
			// As pipeline.LiveNow, by the file's own time (LastUpdated
			// may be an event's): an old log copied today, or one not
			// written for hours, is not running to now; it stops at its
			// last event below, as the app page and the CLI say.
			a.DurationMs = now - r.StartTime
			a.EndTime = -1
		case r.StartTime > 0 && r.LastEvent > 0:
			// No end event: the application stops at its last event, as
			// the CLI says (the file's time may be days later).
			a.DurationMs = r.LastEvent - r.StartTime
		case r.StartTime > 0:
			a.DurationMs = r.LastUpdated - r.StartTime
		}
		switch {
		case r.Done:
			c := s.reportSummary(r)
			a.Phases, a.Findings, a.Outcome = c.phases, c.findings, c.outcome
		case a.Status == "running":
			c := s.liveSummary(r)
			a.Phases, a.Findings, a.Outcome = c.phases, c.findings, c.outcome
		}
		for i := range a.Findings {
			if a.Worst == nil || severityRank[a.Findings[i].Severity] > severityRank[a.Worst.Severity] {
				a.Worst = &a.Findings[i]
			}
		}
		out = append(out, a)
	}
	s.sumMu.Lock()
	if len(s.sums) > 2*len(recs)+64 { // logs forgotten since: drop their summaries
		live := make(map[string]cachedSummary, len(recs))
		for _, r := range recs {
			if c, ok := s.sums[r.Key]; ok {
				live[r.Key] = c
			}
		}
		s.sums = live
	}
	s.sumMu.Unlock()
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].StartTime != out[j].StartTime {
			return out[i].StartTime > out[j].StartTime
		}
		return out[i].key > out[j].key
	})
	return out
}

// reportSummary reads (once per log version) the phases and findings of a
// stored report; reports without them (no analyzer yet) give none.
func (s *Server) reportSummary(r store.LogRecord) cachedSummary {
	s.sumMu.Lock()
	c, ok := s.sums[r.Key]
	s.sumMu.Unlock()
	if ok && c.modTime == r.ModTime {
		return c
	}
	c = cachedSummary{modTime: r.ModTime}
	b, err := s.cfg.Store.Report(r.Key)
	if err != nil {
		b = nil
	}
	c.phases, c.findings, c.outcome = summaryOf(b)
	s.sumMu.Lock()
	s.sums[r.Key] = c
	s.sumMu.Unlock()
	return c
}

// liveSummary returns the last analysis of a running log for the fleet
// views (none before the first) and, when it is older than liveEvery
// (agent samples change findings too, without a new event), starts a new
// one in the background: listing the fleet never waits for an analysis.
func (s *Server) liveSummary(r store.LogRecord) cachedSummary {
	now := s.cfg.Now()
	s.sumMu.Lock()
	defer s.sumMu.Unlock()
	c, ok := s.sums[r.Key]
	if !ok || !c.live {
		c = cachedSummary{live: true, findings: []Finding{}}
		s.sums[r.Key] = c
	}
	if !c.refreshing && now.Sub(c.analysed) >= liveEvery {
		select {
		case s.live <- struct{}{}:
			c.refreshing = true
			s.sums[r.Key] = c
			go s.refreshLive(r.Key)
		default: // another one runs: a later listing asks again
		}
	}
	return c
}

// refreshLive analyses a running log (its report is computed on demand,
// with the agent samples known so far) and keeps the summary.
func (s *Server) refreshLive(key string) {
	defer func() { <-s.live }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	now := s.cfg.Now()
	b, err := s.cfg.Ingest.Report(ctx, key)
	if err != nil {
		b = nil // not read yet: no findings until it is
	}
	c := cachedSummary{live: true, analysed: now}
	c.phases, c.findings, c.outcome = summaryOf(b)
	s.sumMu.Lock()
	if old, ok := s.sums[key]; ok && old.live { // not finished meanwhile
		s.sums[key] = c
	}
	s.sumMu.Unlock()
}

// summaryOf reads the phases and findings of a sparkdx.report/v1
// document; reports without them (or none) give no findings.
func summaryOf(b []byte) (map[string]int64, []Finding, *reportv1.Outcome) {
	var rep struct {
		Phases   map[string]int64  `json:"phases"`
		Findings []Finding         `json:"findings"`
		Outcome  *reportv1.Outcome `json:"outcome"`
	}
	if b == nil || json.Unmarshal(b, &rep) != nil || rep.Findings == nil {
		return rep.Phases, []Finding{}, rep.Outcome
	}
	return rep.Phases, rep.Findings, rep.Outcome
}

// Badge is the status an application's badge shows: "failed" when a job
// failed (Spark's status aside: an application whose job failed still
// completes), "stopped" when the SparkContext stopped with jobs running,
// else its status (running, completed, incomplete).
func (a AppSummary) Badge() string {
	if a.Outcome != nil && a.Status != "running" {
		switch a.Outcome.Status {
		case "failed", "stopped":
			return a.Outcome.Status
		}
	}
	return a.Status
}

// BadgeTitle says which jobs failed, for the badge's tooltip.
func (a AppSummary) BadgeTitle() string {
	if a.Outcome == nil {
		return ""
	}
	return a.Outcome.Summary
}

// appOrders are the ?sort= keys of the application lists.
var appOrders = map[string]func(a, b *AppSummary) int{
	"start":    func(a, b *AppSummary) int { return cmp.Compare(a.StartTime, b.StartTime) },
	"duration": func(a, b *AppSummary) int { return cmp.Compare(a.DurationMs, b.DurationMs) },
	"name":     func(a, b *AppSummary) int { return strings.Compare(a.Name, b.Name) },
	"user":     func(a, b *AppSummary) int { return strings.Compare(a.User, b.User) },
	"stages":   func(a, b *AppSummary) int { return cmp.Compare(a.Stages, b.Stages) },
	"tasks":    func(a, b *AppSummary) int { return cmp.Compare(a.Tasks, b.Tasks) },
	"severity": func(a, b *AppSummary) int { return cmp.Compare(worstRank(a), worstRank(b)) },
}

func worstRank(a *AppSummary) int {
	if a.Worst == nil {
		return 0
	}
	return severityRank[a.Worst.Severity]
}

// appList is the application attempts of all a list asks for: filtered (see
// filter), sorted by ?sort= (default newest first) and cut at
// ?offset=/?length= (length defaults to defLength; 0: all).
func appList(all []AppSummary, q url.Values, defLength int) ([]*AppSummary, listing, error) {
	l, err := parseListing(q, slices.Sorted(maps.Keys(appOrders)), "-start")
	if err != nil {
		return nil, l, err
	}
	if q.Get("length") == "" {
		l.Length = defLength
	}
	apps, err := filter(all, q)
	if err != nil {
		return nil, l, err
	}
	apps = page(apps, &l, appOrders, func(a *AppSummary) string { return a.key })
	if apps == nil {
		apps = []*AppSummary{}
	}
	return apps, l, nil
}

// filter keeps the summaries a query asks for: user, status, rule, tag,
// run (run id), q (name or id substring), from/to (start time, epoch ms or
// YYYY-MM-DD).
func filter(apps []AppSummary, q url.Values) ([]*AppSummary, error) {
	from, err := timeParam(q.Get("from"))
	if err != nil {
		return nil, err
	}
	to, err := timeParam(q.Get("to"))
	if err != nil {
		return nil, err
	}
	status := q.Get("status")
	switch status {
	case "", "running", "completed", "incomplete":
	default:
		return nil, errors.New("unknown status: " + status)
	}
	user, rule, tag, run, sub := q.Get("user"), q.Get("rule"), q.Get("tag"), q.Get("run"), strings.ToLower(q.Get("q"))
	var out []*AppSummary
	for i := range apps {
		a := &apps[i]
		if user != "" && a.User != user {
			continue
		}
		if status != "" && a.Status != status {
			continue
		}
		if rule != "" && !hasRule(a.Findings, rule) {
			continue
		}
		if tag != "" && !contains(a.Tags, tag) {
			continue
		}
		if run != "" && (a.Run == nil || a.Run.ID != run) {
			continue
		}
		if sub != "" && !strings.Contains(a.search, sub) {
			continue
		}
		if from > 0 && a.StartTime < from || to > 0 && a.StartTime >= to {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

func hasRule(fs []Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func timeParam(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, errors.New("bad time: " + s + " (want epoch ms or YYYY-MM-DD)")
}

// attemptsOf returns the summaries of one application, newest first.
func (s *Server) attemptsOf(appID string) []AppSummary {
	var out []AppSummary
	for _, a := range s.summaries() {
		if a.ID == appID {
			out = append(out, a)
		}
	}
	return out
}

// pick chooses an attempt of an application ("" = newest).
func pick(atts []AppSummary, attemptID string) (AppSummary, bool) {
	for _, a := range atts {
		if attemptID == "" || a.AttemptID == attemptID {
			return a, true
		}
	}
	return AppSummary{}, false
}

// skeletonApps are the applications of index records: enough for the
// History Server's application list, without replaying anything.
func skeletonApps(recs []store.LogRecord) []*model.App {
	var atts []*model.Attempt
	for _, r := range recs {
		if r.AppID == "" {
			continue
		}
		a := model.NewAttempt()
		a.AppID, a.AppName, a.AttemptID, a.SparkUser, a.SparkVersion = r.AppID, r.AppName, r.AttemptID, r.User, r.SparkVersion
		a.StartTime, a.EndTime, a.LastUpdated, a.Completed = r.StartTime, r.EndTime, r.LastUpdated, r.Completed
		a.ExitCode = r.ExitCode
		a.LogPath, a.LogName = r.Path, r.Name
		atts = append(atts, a)
	}
	return replay.GroupApps(atts)
}

// fullApp returns an application with every attempt's model, read-locked
// until release is called.
func (s *Server) fullApp(ctx context.Context, appID string) (*model.App, func(), error) {
	var atts []*model.Attempt
	var releases []func()
	release := func() {
		for _, f := range releases {
			f()
		}
	}
	for _, r := range s.cfg.Ingest.Records() {
		if r.AppID != appID {
			continue
		}
		a, rel, err := s.cfg.Ingest.Attempt(ctx, r.Key)
		if errors.Is(err, ingest.ErrNotReady) {
			continue
		}
		if err != nil {
			release()
			return nil, nil, err
		}
		releases = append(releases, rel)
		if a.AppID == appID {
			atts = append(atts, a)
		}
	}
	if len(atts) == 0 {
		release()
		return nil, nil, errUnknownApp
	}
	return replay.GroupApps(atts)[0], release, nil
}

var errUnknownApp = errors.New("unknown app")
