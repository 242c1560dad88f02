package report

import (
	"fmt"
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

const skewStages = 12 // stages the skew chart shows

// skewChart shows, for the most skewed stages, the median, p95 and
// longest task duration side by side, labelled with max ÷ median of
// duration and of bytes read.
func skewChart(r *analyze.Result) svgChart {
	c := svgChart{ID: "skew", Title: "Task skew of the most skewed stages", Width: chartW}
	var ss []analyze.Stage
	for _, s := range r.Stages {
		if s.Succeeded >= 2 && s.TaskDurationMs.Max > 0 {
			ss = append(ss, s)
		}
	}
	if len(ss) == 0 {
		c.Empty = "No stage had two or more successful tasks to compare."
		return c
	}
	sort.SliceStable(ss, func(i, j int) bool {
		if ss[i].SkewDuration != ss[j].SkewDuration {
			return ss[i].SkewDuration > ss[j].SkewDuration
		}
		return ss[i].TaskDurationMs.Max > ss[j].TaskDurationMs.Max
	})
	ss = ss[:min(len(ss), skewStages)]
	var longest int64
	for _, s := range ss {
		longest = max(longest, s.TaskDurationMs.Max)
	}
	const top, groupH, barH = 6.0, 34.0, 9.0
	// The right 230 px hold the longest-task and ratio labels.
	w := float64(plotW - 230)
	x := func(ms int64) float64 { return w * float64(ms) / float64(max(longest, 1)) }
	for i, s := range ss {
		y := top + float64(i)*groupH
		id := fmt.Sprintf("stage %d", s.StageID)
		if s.AttemptID > 0 {
			id += fmt.Sprintf(".%d", s.AttemptID)
		}
		c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y + groupH/2 + 2, Anchor: "end", Class: "label", Text: id})
		bars := []struct {
			v     int64
			class string
			name  string
		}{{s.TaskDurationMs.P50, "sk-p50", "median"}, {s.TaskDurationMs.P95, "sk-p95", "p95"}, {s.TaskDurationMs.Max, "sk-max", "max"}}
		for k, b := range bars {
			c.Rects = append(c.Rects, svgRect{X: labelW, Y: y + 2 + float64(k)*barH, W: max(x(b.v), 1), H: barH - 1,
				Class: b.class, Tip: fmt.Sprintf("%s %s: %s task %s", id, units.OneLine(s.Name), b.name, fmtDuration(b.v))})
		}
		c.Texts = append(c.Texts, svgText{X: labelW + x(s.TaskDurationMs.Max) + 6, Y: y + 2 + 2.6*barH, Class: "note",
			Text: fmtDuration(s.TaskDurationMs.Max)})
		c.Texts = append(c.Texts, svgText{X: labelW + plotW, Y: y + groupH/2 + 2, Anchor: "end", Class: "ratio",
			Text: fmt.Sprintf("time %s · bytes %s", fmtRatio(s.SkewDuration), fmtRatio(s.SkewBytes))})
	}
	axisY := top + float64(len(ss))*groupH
	c.Lines = append(c.Lines, svgLine{Points: points([]float64{labelW, labelW + w}, []float64{axisY, axisY}), Class: "axis"})
	c.Height = int(axisY) + 10
	c.Legend = []legendItem{{Class: "sk-p50", Label: "median task"}, {Class: "sk-p95", Label: "p95 task"},
		{Class: "sk-max", Label: "longest task"}, {Label: "right: max ÷ median of task time and of bytes read"}}
	return c
}
