package report

import (
	"cmp"
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

// profiledStages are the stages the reports break a profile down by:
// those of the critical path (analyze's CriticalPath.StageIDs) that have
// samples, in the path's order — at most n, those with the most samples
// when more have some. Without a path, or when none of its stages was
// profiled, the longest n stages with samples, longest first (onPath
// false). One definition for the text and HTML reports; the JSON report
// carries the path itself.
func profiledStages(r *analyze.Result, p *profile.Profile, n int) (ids []int, onPath bool) {
	totals := map[int]int64{}
	for _, id := range p.Stages() {
		totals[id] = p.Stage(id).Total()
	}
	for _, id := range r.CriticalPath.StageIDs {
		if totals[id] > 0 && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		if len(ids) > n {
			most := slices.Clone(ids)
			slices.SortStableFunc(most, func(a, b int) int { return cmp.Compare(totals[b], totals[a]) })
			ids = slices.DeleteFunc(ids, func(id int) bool { return !slices.Contains(most[:n], id) })
		}
		return ids, true
	}
	for _, s := range topStages(r, n) {
		if totals[s.StageID] > 0 && !slices.Contains(ids, s.StageID) {
			ids = append(ids, s.StageID)
		}
	}
	return ids, false
}

// writeProfile prints the top frames of the application's profile and of
// each stage of the critical path that has samples (else of the longest
// stages): which code the time of the stages that set the wall time went
// to.
func writeProfile(w io.Writer, in *Input, st style, n int) {
	p := in.Profile
	if p == nil || in.Result == nil {
		return
	}
	files := fmt.Sprintf("%d profile files", len(in.ProfileFiles))
	if len(in.ProfileFiles) == 1 {
		files = "profile " + units.OneLine(in.ProfileFiles[0])
	}
	ids, onPath := profiledStages(in.Result, p, n)
	which := "longest stages"
	if onPath {
		which = "critical path's stages"
	}
	fmt.Fprintf(w, "%s  %s\n", st.bold("Where the CPU went"), st.dim(fmt.Sprintf("%d %s samples from %s; %s", p.Total(), p.Kind, files, which)))
	t := &table{head: []string{"", "samples", "top frames"}, right: []bool{false, true, false}}
	t.add(nil, "all threads", fmt.Sprint(p.Total()), TopFrames(p, profileTop))
	for _, id := range ids {
		s := p.Stage(id)
		t.add(nil, fmt.Sprintf("stage %d", id), fmt.Sprint(s.Total()), TopFrames(s, profileTop))
	}
	t.write(w, st, "  ")
	fmt.Fprintln(w)
}

// htmlFlame is the report's flame-graph section: the application's
// profile and its stages' (profiledStages), each drawn by
// profile.FlameJS from its data.
type htmlFlame struct {
	OnPath  bool // the stages are the critical path's, not the longest
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
	ids, onPath := profiledStages(in.Result, p, n)
	f.OnPath = onPath
	for _, id := range ids {
		s := p.Stage(id)
		d, err := profile.FlameData(s)
		if err != nil {
			continue
		}
		f.Stages = append(f.Stages, htmlFlameStage{ID: id, Samples: s.Total(), Unit: p.Kind.Unit(), Top: TopFrames(s, profileTop), Data: string(d)})
	}
	return f
}
