package server

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// cachedSummary is the report-derived part of a log's summary.
type cachedSummary struct {
	modTime  int64
	phases   map[string]int64
	findings []fleet.Finding
	outcome  *reportv1.Outcome
	cost     *reportCost // nil: a report without one

	live       bool      // analysed while running
	analysed   time.Time // when the live analysis ran
	refreshing bool      // a live analysis runs
}

// liveEvery bounds how often a running application is analysed again for
// the fleet views, however fast its log grows.
const liveEvery = 5 * time.Second

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
	apps    []fleet.AppSummary
}

// summaries returns every application attempt known, newest start first.
// The list is shared by the requests of one ingest version (callers must
// not change it); while an application runs it is built again once it is
// a second old, so that running durations keep up with the clock.
func (s *Server) summaries() []fleet.AppSummary { return s.summaryList().apps }

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
func (s *Server) buildSummaries() []fleet.AppSummary {
	recs := s.cfg.Ingest.Records()
	now := s.cfg.Now().UnixMilli()
	out := make([]fleet.AppSummary, 0, len(recs))
	for _, r := range recs {
		if r.AppID == "" {
			continue
		}
		a := fleet.AppSummary{ID: r.AppID, AttemptID: r.AttemptID, Name: r.AppName, User: r.User, Status: statusOf(r),
			StartTime: r.StartTime, EndTime: r.EndTime, Tags: r.Tags, Run: r.Run, Stages: r.Stages, Tasks: r.Tasks,
			Events: r.Events, Log: r.Name, LastUpdated: r.LastUpdated, Findings: []fleet.Finding{}}
		a.SetIndex(r.Key, r.ModTime/1e6)
		if a.Tags == nil {
			a.Tags = []string{}
		}
		switch {
		case r.Completed:
			a.DurationMs = r.EndTime - r.StartTime
		case r.StartTime > 0 && a.Status == "running" && a.FileMod() > 0 &&
			now-a.FileMod() <= pipeline.LiveWithin.Milliseconds() &&
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
			a.Phases, a.Findings, a.Outcome, a.Cost = c.phases, c.findings, c.outcome, c.cost.at(s.cfg.Prices)
		case a.Status == "running":
			c := s.liveSummary(r)
			a.Phases, a.Findings, a.Outcome, a.Cost = c.phases, c.findings, c.outcome, c.cost.at(s.cfg.Prices)
		}
		for i := range a.Findings {
			if a.Worst == nil || fleet.SeverityRank(a.Findings[i].Severity) > fleet.SeverityRank(a.Worst.Severity) {
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
		return out[i].Key() > out[j].Key()
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
	c.phases, c.findings, c.outcome, c.cost = summaryOf(b)
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
		c = cachedSummary{live: true, findings: []fleet.Finding{}}
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
	c.phases, c.findings, c.outcome, c.cost = summaryOf(b)
	s.sumMu.Lock()
	if old, ok := s.sums[key]; ok && old.live { // not finished meanwhile
		s.sums[key] = c
	}
	s.sumMu.Unlock()
}

// summaryOf reads the phases, findings, outcome and cost of a
// sparkdx.report/v1 document; reports without them (or none) give no
// findings.
func summaryOf(b []byte) (map[string]int64, []fleet.Finding, *reportv1.Outcome, *reportCost) {
	var rep struct {
		Phases       map[string]int64  `json:"phases"`
		Findings     []fleet.Finding   `json:"findings"`
		Outcome      *reportv1.Outcome `json:"outcome"`
		ResourceCost *reportCost       `json:"resourceCost"`
	}
	if b == nil || json.Unmarshal(b, &rep) != nil || rep.Findings == nil {
		return rep.Phases, []fleet.Finding{}, rep.Outcome, rep.ResourceCost
	}
	return rep.Phases, rep.Findings, rep.Outcome, rep.ResourceCost
}

// reportCost is the part of a report's resourceCost the fleet shows:
// the total analyze prints, and what a price list prices it by.
type reportCost struct {
	Total        cost.Usage `json:"total"`
	InstanceType string     `json:"instanceType"`
}

// at is the total at l's prices for the instance type; nil without a
// cost.
func (c *reportCost) at(l cost.PriceList) *cost.Usage {
	if c == nil {
		return nil
	}
	u := c.Total.At(l.For(c.InstanceType))
	return &u
}

// attemptsOf returns the summaries of one application, newest first.
func (s *Server) attemptsOf(appID string) []fleet.AppSummary {
	return fleet.AttemptsOf(s.summaries(), appID)
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
