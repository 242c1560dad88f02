package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/units"
)

// htmlDiff is what the page template's "diff" block reads.
type htmlDiff struct {
	D            *diff.Diff
	Verdict      string
	VerdictClass string // delta-better | delta-worse | ""
	Charts       []svgChart
	Phases       []htmlChange
	Totals       []htmlChange
	Stages       []htmlStageChange
	Findings     []htmlFindingChange
	Counts       map[string]int
	Config       []htmlConfigChange
}

// htmlConfigChange is one changed property's row.
type htmlConfigChange struct {
	diff.ConfigChange
	BeforeV, AfterV, What, Stages string
}

type htmlChange struct {
	Name, Before, After, Delta, Class string
}

type htmlStageChange struct {
	diff.StageChange
	BeforeID, AfterID, Name, BeforeDur, AfterDur, Delta, Tasks, Shuffle, How, Class string
}

type htmlFindingChange struct {
	diff.FindingChange
	Change, Severity, Class string
}

// WriteDiffHTML writes the comparison as one self-contained page: the
// comparison first, then the full report of each run.
func WriteDiffHTML(w io.Writer, d *diff.Diff, before, after *Input) error {
	page, err := newPage()
	if err != nil {
		return err
	}
	page.Title = "sparkdx diff · " + units.OneLine(d.Before.AppID) + " → " + units.OneLine(d.After.AppID)
	page.Diff = htmlDiffOf(d)
	for i, in := range []*Input{before, after} {
		if in != nil {
			app := htmlAppOf(in, i)
			app.Role = []string{"before", "after"}[i]
			page.Apps = append(page.Apps, app)
		}
	}
	return renderPage(w, page)
}

func deltaClass(delta int64) string {
	switch {
	case delta < 0:
		return "delta-better"
	case delta > 0:
		return "delta-worse"
	}
	return ""
}

func htmlDiffOf(d *diff.Diff) *htmlDiff {
	h := &htmlDiff{D: d, Verdict: verdict(d, style{}), Counts: map[string]int{}}
	if d.Before.DurationMs > 0 && d.After.DurationMs > 0 {
		h.VerdictClass = deltaClass(d.After.DurationMs - d.Before.DurationMs)
	}
	conv := func(cs []diff.Change) []htmlChange {
		var out []htmlChange
		for _, c := range cs {
			out = append(out, htmlChange{Name: c.Name, Before: fmtValue(c.Unit, c.Before), After: fmtValue(c.Unit, c.After),
				Delta: fmtDelta(c), Class: deltaClass(c.Delta)})
		}
		return out
	}
	h.Phases, h.Totals = conv(d.Phases), conv(d.Totals)
	for _, s := range d.Stages {
		r := htmlStageChange{StageChange: s, BeforeID: "-", AfterID: "-", BeforeDur: "-", AfterDur: "-",
			Delta: signedDuration(s.DeltaMs), How: s.Match, Class: deltaClass(s.DeltaMs)}
		if s.DeltaMs == 0 {
			r.Delta = "="
		}
		bTasks, aTasks, bSh, aSh := "-", "-", "-", "-"
		if s.Before != nil {
			r.BeforeID, r.Name, r.BeforeDur = joinInts(s.Before.StageIDs), s.Before.Name, fmtDuration(s.Before.DurationMs)
			bTasks, bSh = fmt.Sprint(s.Before.Tasks), fmtBytesOrDash(s.Before.ShuffleReadBytes)
		}
		if s.After != nil {
			r.AfterID, r.Name, r.AfterDur = joinInts(s.After.StageIDs), s.After.Name, fmtDuration(s.After.DurationMs)
			aTasks, aSh = fmt.Sprint(s.After.Tasks), fmtBytesOrDash(s.After.ShuffleReadBytes)
		}
		r.Tasks, r.Shuffle = bTasks+" → "+aTasks, bSh+" → "+aSh
		if s.Status != diff.StageMatched {
			r.How = s.Status
		}
		h.Counts[r.How]++
		h.Stages = append(h.Stages, r)
	}
	add := func(change, class string, fs []diff.FindingChange) {
		for _, f := range fs {
			sev := f.AfterSeverity
			if sev == "" {
				sev = f.BeforeSeverity
			}
			if f.BeforeSeverity != "" && f.AfterSeverity != "" && f.BeforeSeverity != f.AfterSeverity {
				sev = f.BeforeSeverity + " → " + f.AfterSeverity
			}
			h.Findings = append(h.Findings, htmlFindingChange{FindingChange: f, Change: change, Severity: sev, Class: class})
		}
	}
	add("fixed", "delta-better", d.Findings.Removed)
	add("new", "delta-worse", d.Findings.Added)
	add("still", "", d.Findings.Kept)
	for _, c := range d.Config {
		what := c.Effect
		if what == "" && c.Acts != "" {
			what = "acts on " + c.Acts + ": nothing there changed"
		}
		h.Config = append(h.Config, htmlConfigChange{ConfigChange: c, BeforeV: configValue(c.Before, c.BeforeDefault),
			AfterV: configValue(c.After, c.AfterDefault), What: what, Stages: joinInts(c.StageIDs)})
	}
	h.Charts = []svgChart{phaseCompareChart(d), stageCompareChart(d)}
	return h
}

// phaseCompareChart draws both runs as stacked phase bars on one scale.
func phaseCompareChart(d *diff.Diff) svgChart {
	c := svgChart{ID: "diff-phases", Title: "Wall time by phase, before and after", Width: chartW}
	longest := max(d.Phases[0].Before, d.Phases[0].After)
	if longest <= 0 {
		c.Empty = "Neither run has a wall time."
		return c
	}
	const top, rowH = 8.0, 40.0
	phases := []analyze.Phase{analyze.PhaseResourceWait, analyze.PhaseCompute, analyze.PhaseOutputWrite, analyze.PhaseDriverOnly}
	for row, label := range []string{"before", "after"} {
		y := top + float64(row)*rowH
		c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y + rowH/2, Anchor: "end", Class: "label", Text: label})
		x := float64(labelW)
		var total int64
		for k, ph := range phases {
			v := d.Phases[k+1].Before
			if row == 1 {
				v = d.Phases[k+1].After
			}
			total += v
			w := float64(plotW) * float64(v) / float64(longest)
			if w <= 0 {
				continue
			}
			c.Rects = append(c.Rects, svgRect{X: x, Y: y + 6, W: w, H: rowH - 14, Class: "ph-" + string(ph),
				Tip: fmt.Sprintf("%s %s: %s", label, phaseLabels[ph], fmtDuration(v))})
			x += w
		}
		c.Texts = append(c.Texts, svgText{X: min(x+6, float64(labelW+plotW)), Y: y + rowH/2, Anchor: anchorFor(x), Class: "note",
			Text: fmtDuration(total)})
	}
	axisY := top + 2*rowH
	c.timeAxis(labelW, plotW, axisY, top, 0, longest)
	c.Height = int(axisY) + 24
	for _, ph := range phases {
		c.Legend = append(c.Legend, legendItem{Class: "ph-" + string(ph), Label: phaseLabels[ph]})
	}
	return c
}

func anchorFor(x float64) string {
	if x+60 > labelW+plotW {
		return "end"
	}
	return "start"
}

// stageCompareChart draws the stages that changed most as pairs of bars.
func stageCompareChart(d *diff.Diff) svgChart {
	c := svgChart{ID: "diff-stages", Title: "Stages that changed most", Width: chartW}
	rows := append([]diff.StageChange(nil), d.Stages...)
	sort.SliceStable(rows, func(i, j int) bool { return abs64(rows[i].DeltaMs) > abs64(rows[j].DeltaMs) })
	rows = rows[:min(len(rows), diffStageRows)]
	var longest int64
	for _, s := range rows {
		if s.Before != nil {
			longest = max(longest, s.Before.DurationMs)
		}
		if s.After != nil {
			longest = max(longest, s.After.DurationMs)
		}
	}
	if len(rows) == 0 || longest <= 0 {
		c.Empty = "No stage ran in either run."
		return c
	}
	const top, groupH, barH = 6.0, 30.0, 11.0
	w := float64(plotW - 120)
	for i, s := range rows {
		y := top + float64(i)*groupH
		name := ""
		var bv, av int64
		if s.Before != nil {
			name, bv = s.Before.Name, s.Before.DurationMs
		}
		if s.After != nil {
			name, av = s.After.Name, s.After.DurationMs
		}
		c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y + groupH/2 + 2, Anchor: "end", Class: "label",
			Text: units.ShortName(name, 24)})
		c.Rects = append(c.Rects,
			svgRect{X: labelW, Y: y + 3, W: max(w*float64(bv)/float64(longest), 0.5), H: barH, Class: "cmp-before",
				Tip: fmt.Sprintf("before: %s %s", name, fmtDuration(bv))},
			svgRect{X: labelW, Y: y + 3 + barH + 1, W: max(w*float64(av)/float64(longest), 0.5), H: barH, Class: "cmp-after",
				Tip: fmt.Sprintf("after: %s %s", name, fmtDuration(av))})
		label := signedDuration(s.DeltaMs)
		if s.DeltaMs == 0 {
			label = "="
		}
		if s.Status != diff.StageMatched {
			label = s.Status + " " + label
		}
		c.Texts = append(c.Texts, svgText{X: labelW + plotW, Y: y + groupH/2 + 2, Anchor: "end",
			Class: "ratio " + deltaClass(s.DeltaMs), Text: label})
	}
	c.Height = int(top+float64(len(rows))*groupH) + 6
	c.Legend = []legendItem{{Class: "cmp-before", Label: "before"}, {Class: "cmp-after", Label: "after"}}
	return c
}
