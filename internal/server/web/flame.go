package web

import (
	"cmp"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/profile"
	"github.com/sparkdx/sparkdx/internal/report"
)

// flameView is the app page's flame graphs: the application's CPU
// profile from the files found for it, and its stages' with the most
// samples. Added per request, never stored with the page's view.
type flameView struct {
	Samples int64
	Unit    string
	Files   string
	Top     string
	Data    string
	CSS     template.CSS
	Stages  []flameStage
}

type flameStage struct {
	ID      int
	Samples int64
	Top     string
	Data    string
}

// flameStages is how many stages get a graph of their own.
const flameStages = 10

// profileFiles are the profiles of application id in the configured
// directory; a directory that cannot be read leaves the page without.
func (s *Pages) profileFiles(id string) []string {
	if s.cfg.Profiles == "" {
		return nil
	}
	files, err := profile.AppFiles(s.cfg.Profiles, id)
	if err != nil {
		s.cfg.Logger.Warn("profiles", "app", id, "err", err)
	}
	return files
}

// flameOf reads the profiles of application id; nil without any.
func (s *Pages) flameOf(id string) *flameView {
	p, files, err := profile.ReadAppProfiles(s.cfg.Profiles, id)
	if err != nil {
		s.cfg.Logger.Warn("profiles", "app", id, "err", err)
		return nil
	}
	if p == nil {
		return nil
	}
	data, err := profile.FlameData(p)
	if err != nil {
		return nil
	}
	f := &flameView{Samples: p.Total(), Unit: p.Kind.Unit(), Files: strings.Join(files, ", "), Top: report.TopFrames(p, 3),
		Data: string(data), CSS: profile.FlameCSS}
	stages := p.Stages()
	subs, totals := map[int]*profile.Profile{}, map[int]int64{}
	for _, id := range stages {
		subs[id] = p.Stage(id)
		totals[id] = subs[id].Total()
	}
	slices.SortFunc(stages, func(a, b int) int { return cmp.Or(cmp.Compare(totals[b], totals[a]), cmp.Compare(a, b)) })
	for _, id := range stages[:min(len(stages), flameStages)] {
		sp := subs[id]
		d, err := profile.FlameData(sp)
		if err != nil {
			continue
		}
		f.Stages = append(f.Stages, flameStage{ID: id, Samples: totals[id], Top: report.TopFrames(sp, 3), Data: string(d)})
	}
	return f
}

// flameScript serves the flame-graph script as a file of this origin:
// the pages' Content-Security-Policy allows no inline script.
func flameScript(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	fmt.Fprint(w, profile.FlameJS, profile.FlameInit)
}
