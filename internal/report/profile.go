package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/profile"
	"github.com/sparkdx/sparkdx/internal/units"
)

// profileTop is how many frames a stage's line names.
const profileTop = 3

// TopFrames says where a profile's samples went, n frames: "62.0 % in
// X.processNext, 20.1 % in Y.next" (the reports and serve's app page).
func TopFrames(p *profile.Profile, n int) string {
	var parts []string
	for _, f := range p.Top(n) {
		parts = append(parts, fmt.Sprintf("%.1f %% in %s", 100*f.Share, units.OneLine(f.Frame)))
	}
	if len(parts) == 0 {
		return "no samples"
	}
	return strings.Join(parts, ", ")
}

// profiledStages are the stages of the longest n, longest first, that the
// profile has samples of; those without any are left out.
func profiledStages(r *analyze.Result, p *profile.Profile, n int) []int {
	has := map[int]bool{}
	for _, id := range p.Stages() {
		has[id] = true
	}
	var out []int
	for _, s := range topStages(r, n) {
		if has[s.StageID] && !slices.Contains(out, s.StageID) {
			out = append(out, s.StageID)
		}
	}
	return out
}

// writeProfile prints the top frames of the application's profile and of
// each of its longest stages that has samples: which code the time of
// the stages that set the wall time went to.
func writeProfile(w io.Writer, in *Input, st style, n int) {
	p := in.Profile
	if p == nil || in.Result == nil {
		return
	}
	files := fmt.Sprintf("%d profile files", len(in.ProfileFiles))
	if len(in.ProfileFiles) == 1 {
		files = "profile " + units.OneLine(in.ProfileFiles[0])
	}
	fmt.Fprintf(w, "%s  %s\n", st.bold("Where the CPU went"), st.dim(fmt.Sprintf("%d %s samples from %s", p.Total(), p.Kind, files)))
	t := &table{head: []string{"", "samples", "top frames"}, right: []bool{false, true, false}}
	t.add(nil, "all threads", fmt.Sprint(p.Total()), TopFrames(p, profileTop))
	for _, id := range profiledStages(in.Result, p, n) {
		s := p.Stage(id)
		t.add(nil, fmt.Sprintf("stage %d", id), fmt.Sprint(s.Total()), TopFrames(s, profileTop))
	}
	t.write(w, st, "  ")
	fmt.Fprintln(w)
}

// htmlFlame is the report's flame-graph section: the application's
// profile and its longest stages', each drawn by profile.FlameJS from
// its data.
type htmlFlame struct {
	Samples int64
	Kind    string
	Unit    string
	Files   string
	Data    string
	Stages  []htmlFlameStage
}

type htmlFlameStage struct {
	ID      int
	Samples int64
	Unit    string
	Top     string
	Data    string
}

// flameOf builds the section from in's profile; nil without one.
func flameOf(in *Input, n int) *htmlFlame {
	p := in.Profile
	if p == nil || in.Result == nil {
		return nil
	}
	data, err := profile.FlameData(p)
	if err != nil {
		return nil
	}
	f := &htmlFlame{Samples: p.Total(), Kind: string(p.Kind), Unit: p.Kind.Unit(), Files: strings.Join(in.ProfileFiles, ", "), Data: string(data)}
	for _, id := range profiledStages(in.Result, p, n) {
		s := p.Stage(id)
		d, err := profile.FlameData(s)
		if err != nil {
			continue
		}
		f.Stages = append(f.Stages, htmlFlameStage{ID: id, Samples: s.Total(), Unit: p.Kind.Unit(), Top: TopFrames(s, profileTop), Data: string(d)})
	}
	return f
}
