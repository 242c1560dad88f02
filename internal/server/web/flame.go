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

// flameView is a page's flame graphs: on the app page the application's
// CPU profile from the files found for it and its stages' with the most
// samples, on a stage page the stage's, on the executors page each
// executor's. Added per request, never stored with the page's view.
type flameView struct {
	Samples int64
	Unit    string
	Files   string
	Top     string
	Data    string
	CSS     template.CSS
	Stages  []flameStage
	// Executors lists the executors the samples came from (the stage
	// page's); Execs are the executors page's graphs.
	Executors string
	Execs     []flameExec
}

type flameExec struct {
	ID      string
	Samples int64
	Top     string
	Data    string
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

// readProfile reads the profiles of application id; nil without any.
func (s *Pages) readProfile(id string) (*profile.Profile, []string) {
	if s.cfg.Profiles == "" {
		return nil, nil
	}
	p, files, err := profile.ReadAppProfiles(s.cfg.Profiles, id)
	if err != nil {
		s.cfg.Logger.Warn("profiles", "app", id, "err", err)
	}
	return p, files
}

// flameOf is the app page's flame graphs of application id; nil without
// any profile.
func (s *Pages) flameOf(id string) *flameView {
	p, files := s.readProfile(id)
	if p == nil {
		return nil
	}
	f := newFlameView(p, files)
	if f == nil {
		return nil
	}
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

// newFlameView is the graph of p alone; nil when p has no samples.
func newFlameView(p *profile.Profile, files []string) *flameView {
	if p.Total() == 0 {
		return nil
	}
	data, err := profile.FlameData(p)
	if err != nil {
		return nil
	}
	return &flameView{Samples: p.Total(), Unit: p.Kind.Unit(), Files: strings.Join(files, ", "), Top: report.TopFrames(p, 3),
		Data: string(data), CSS: profile.FlameCSS, Executors: strings.Join(p.Executors(), ", ")}
}

// stageFlame is the stage page's graph: the samples of stage id's tasks
// on every executor profiled; nil without any.
func (s *Pages) stageFlame(app string, id int) *flameView {
	p, files := s.readProfile(app)
	if p == nil {
		return nil
	}
	return newFlameView(p.Stage(id), files)
}

// executorFlames are the executors page's graphs: one per executor with
// samples, its stages side by side under the root (a task's samples hang
// under "stage N", the rest under their thread's name); nil without any.
func (s *Pages) executorFlames(app string) *flameView {
	p, files := s.readProfile(app)
	if p == nil {
		return nil
	}
	f := &flameView{Unit: p.Kind.Unit(), Files: strings.Join(files, ", "), CSS: profile.FlameCSS}
	for _, id := range p.Executors() {
		x := newFlameView(p.Executor(id), nil)
		if x == nil {
			continue
		}
		f.Samples += x.Samples
		f.Execs = append(f.Execs, flameExec{ID: id, Samples: x.Samples, Top: x.Top, Data: x.Data})
	}
	if len(f.Execs) == 0 {
		return nil
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
