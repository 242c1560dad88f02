package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
)

func (s *Pages) appPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	atts := s.attemptsOf(id)
	sum, ok := fleet.Pick(atts, r.URL.Query().Get("attempt"))
	if !ok {
		s.errorPage(w, http.StatusNotFound, "Unknown application", "No application attempt "+id+" is indexed.")
		return
	}
	samples := s.memorySamples(id)
	profiles := s.profileFiles(sum.ID)
	// A finished app's page changes only with its log, its attempts,
	// agent samples and profiles.
	ckey := ""
	if sum.Status != "running" {
		ckey = fmt.Sprintf("app|%s|%d|%d|%d|%s", sum.Key(), sum.LastUpdated, len(atts), len(samples), strings.Join(profiles, "/"))
		if body, _, ok := s.cfg.Cache.Get(ckey, 0, 0); ok {
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
		if o.Key() != sum.Key() {
			v.Others = append(v.Others, o)
		}
	}
	if sum.Phases == nil {
		sum.Phases = v.Phases
	}
	v.Sum, v.Title, v.Live = sum, sum.Name, sum.Status == "running"
	v.withSamples(samples)
	if len(profiles) > 0 {
		v.Flame = s.flameOf(sum.ID)
	}
	body, err := s.renderBytes("app.html", v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if ckey != "" {
		s.cfg.Cache.Put(ckey, 0, body, "")
	}
	writeHTML(w, http.StatusOK, body)
}

// appView is the stored view of a finished log, or one computed now from
// the model of a running one.
func (s *Pages) appView(ctx context.Context, sum fleet.AppSummary) (*appView, error) {
	if sum.Status != "running" {
		if b, err := s.cfg.Ingest.View(sum.Key(), "page"); err == nil {
			var v appView
			if err := json.Unmarshal(b, &v); err == nil {
				return &v, nil
			}
		}
	}
	a, release, err := s.cfg.Ingest.Attempt(ctx, sum.Key())
	if err != nil {
		return nil, err
	}
	defer release()
	running := sum.Status == "running"
	var mod time.Time
	if sum.FileMod() > 0 {
		mod = time.UnixMilli(sum.FileMod())
	}
	live := pipeline.LiveNow(a, pipeline.Source{InProgress: running, ModTime: mod, Now: s.cfg.Now()})
	return buildAppView(a, analyze.AnalyzeAt(a, live), running, s.cfg.Now().UnixMilli()), nil
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
