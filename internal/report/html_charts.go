package report

import (
	"fmt"
	"math"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/chart"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/units"
)

const (
	chartW     = 1100
	labelW     = 150 // left margin for row labels
	plotRightM = 20
	plotW      = chartW - labelW - plotRightM
	maxRows    = 200 // stage timeline rows before the rest are summarised
)

var phaseLabels = map[analyze.Phase]string{
	analyze.PhaseResourceWait: "resource wait",
	analyze.PhaseCompute:      "compute",
	analyze.PhaseOutputWrite:  "output write",
	analyze.PhaseDriverOnly:   "driver only",
}

// phaseGantt draws the timeline as a Gantt chart: one row per phase plus
// an overview row with every phase.
func phaseGantt(r *analyze.Result) svgChart {
	c := svgChart{ID: "phases", Title: "Phase Gantt chart", Width: chartW}
	span := r.EndTime - r.StartTime
	if span <= 0 || len(r.Timeline) == 0 {
		c.Empty = "No timeline: the log has no application start and end times."
		return c
	}
	const rowH, top = 26.0, 8.0
	x := func(t int64) float64 { return labelW + plotW*float64(t-r.StartTime)/float64(span) }
	rows := []analyze.Phase{"", analyze.PhaseResourceWait, analyze.PhaseCompute, analyze.PhaseOutputWrite, analyze.PhaseDriverOnly}
	for i, ph := range rows {
		y := top + float64(i)*rowH
		label := "application"
		if ph != "" {
			label = fmt.Sprintf("%s  %s", phaseLabels[ph], fmtPct(r.Phases.Ratio(ph)))
		}
		c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y + rowH/2 + 4, Anchor: "end", Class: "label", Text: label})
		c.Rects = append(c.Rects, svgRect{X: labelW, Y: y + 3, W: plotW, H: rowH - 6, Class: "track"})
		for _, iv := range r.Timeline {
			if ph != "" && iv.Phase != ph {
				continue
			}
			w := max(x(iv.End)-x(iv.Start), 0.5)
			c.Rects = append(c.Rects, svgRect{X: x(iv.Start), Y: y + 3, W: w, H: rowH - 6,
				Class: "ph-" + string(iv.Phase),
				Tip: fmt.Sprintf("%s: %s (+%s → +%s)", phaseLabels[iv.Phase], fmtDuration(iv.End-iv.Start),
					fmtDuration(iv.Start-r.StartTime), fmtDuration(iv.End-r.StartTime))})
		}
	}
	axisY := top + float64(len(rows))*rowH + 4
	c.timeAxis(labelW, plotW, axisY, top, 0, span)
	c.Height = int(axisY) + 24
	for _, ph := range rows[1:] {
		c.Legend = append(c.Legend, legendItem{Class: "ph-" + string(ph),
			Label: fmt.Sprintf("%s %s", phaseLabels[ph], fmtDuration(phaseMs(r.Phases, ph)))})
	}
	return c
}

// stageTimeline draws chart.Stages: each stage attempt from submission to
// completion, in submission order.
func stageTimeline(r *analyze.Result) svgChart {
	c := svgChart{ID: "stages", Title: "Stage timeline", Width: chartW}
	span := r.EndTime - r.StartTime
	bars := chart.Stages(r)
	if span <= 0 || len(bars) == 0 {
		c.Empty = "No stage ran."
		return c
	}
	hidden := 0
	if len(bars) > maxRows {
		hidden = len(bars) - maxRows
		bars = bars[:maxRows]
	}
	rowH := 18.0
	if len(bars) > 40 {
		rowH = 10
	}
	const top = 6.0
	var first, last []int64
	for _, b := range bars {
		first = append(first, b.Start)
		last = append(last, b.Stage.CompletionTime)
	}
	from, to := zoom(r, first, last)
	x := timeX(r.StartTime, from, to)
	for i, b := range bars {
		y := top + float64(i)*rowH
		if rowH >= 14 || i%2 == 0 {
			c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y + rowH/2 + 4, Anchor: "end", Class: "label", Text: stageLabel(b.Stage)})
		}
		c.Rects = append(c.Rects, stageRect(b, x, y, rowH))
	}
	axisY := top + float64(len(bars))*rowH + 4
	c.timeAxis(labelW, plotW, axisY, top, from, to)
	c.Height = int(axisY) + 24
	if hidden > 0 {
		c.Texts = append(c.Texts, svgText{X: labelW, Y: axisY + 32, Class: "note",
			Text: fmt.Sprintf("%d later stages not drawn", hidden)})
		c.Height += 20
	}
	c.Legend = []legendItem{{Class: "st-ok", Label: "completed"}, {Class: "st-write", Label: "writes output"},
		{Class: "st-failed", Label: "failed"}, {Class: "st-other", Label: "other"}, {Label: axisNote(from, to, span)}}
	return c
}

func stageLabel(s *analyze.Stage) string {
	id := fmt.Sprintf("stage %d", s.StageID)
	if s.AttemptID > 0 {
		id += fmt.Sprintf(".%d", s.AttemptID)
	}
	return id
}

// stageRect is one bar of the stage timeline at row y.
func stageRect(b chart.StageBar, x func(int64) float64, y, rowH float64) svgRect {
	s := b.Stage
	class := "st-ok"
	switch {
	case s.Status == model.StageFailed:
		class = "st-failed"
	case s.IsWrite:
		class = "st-write"
	case s.Status != model.StageComplete:
		class = "st-other"
	}
	return svgRect{X: x(b.Start), Y: y + 1, W: max(x(b.End)-x(b.Start), 1), H: rowH - 2, Class: class,
		Tip: fmt.Sprintf("%s %s: %s, %d tasks, %s, task p50 %s max %s", stageLabel(s), units.OneLine(s.Name), fmtDuration(s.DurationMs),
			s.NumTasks, lowerStatus(s.Status), fmtDuration(s.TaskDurationMs.P50), fmtDuration(s.TaskDurationMs.Max))}
}

func lowerStatus(s string) string {
	b := []byte(units.OneLine(s))
	for i, ch := range b {
		if ch >= 'A' && ch <= 'Z' {
			b[i] = ch + 'a' - 'A'
		}
	}
	return string(b)
}

// memoryChart draws each executor's JVM heap readings over time, with the
// configured executor memory as a dashed line.
func memoryChart(in *Input) svgChart {
	r := in.Result
	c := svgChart{ID: "memory", Title: "Executor JVM heap over time", Width: chartW}
	ids, series := chart.Heap(in.Attempt) // the series serve's app page draws too
	span := r.EndTime - r.StartTime
	if len(ids) == 0 || span <= 0 {
		c.Empty = "No executor memory metrics in this log (Spark 3.0+ writes them with each task end; " +
			"spark.eventLog.logStageExecutorMetrics adds per-stage peaks)."
		return c
	}
	var peak int64
	for _, id := range ids {
		for _, s := range series[id] {
			peak = max(peak, s.Bytes)
		}
	}
	limit := r.Config.ExecutorMemoryBytes
	yMax := float64(peak)
	if limit > 0 && float64(limit) < 2.5*float64(peak) {
		yMax = max(yMax, float64(limit))
	}
	yMax *= 1.08
	const top, plotH = 10.0, 240.0
	var times []int64
	for _, id := range ids {
		for _, s := range series[id] {
			times = append(times, s.T)
		}
	}
	from, to := zoom(r, times, times)
	x := timeX(r.StartTime, from, to)
	y := func(v int64) float64 { return top + plotH - plotH*float64(v)/yMax }
	c.byteAxis(yMax, limit, y)
	for i, id := range ids {
		c.heapLine(i, id, series[id], x, y, r.StartTime)
	}
	axisY := top + plotH
	c.timeAxis(labelW, plotW, axisY, top, from, to)
	c.Height = int(axisY) + 24
	c.Legend = append(c.Legend, legendItem{Label: axisNote(from, to, span)})
	return c
}

// byteAxis draws the byte grid up to yMax and, when it fits, the
// executor memory limit as a dashed line.
func (c *svgChart) byteAxis(yMax float64, limit int64, y func(int64) float64) {
	step := byteStep(yMax, 5)
	for v := 0.0; v <= yMax; v += step {
		c.Grid = append(c.Grid, svgLine{Points: points([]float64{labelW, labelW + plotW}, []float64{y(int64(v)), y(int64(v))}), Class: "grid"})
		c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y(int64(v)) + 4, Anchor: "end", Class: "tick", Text: fmtBytes(int64(v))})
	}
	if limit > 0 && float64(limit) <= yMax {
		c.Lines = append(c.Lines, svgLine{Points: points([]float64{labelW, labelW + plotW}, []float64{y(limit), y(limit)}),
			Class: "limit", Dash: true, Tip: "spark.executor.memory " + fmtBytes(limit)})
		c.Texts = append(c.Texts, svgText{X: labelW + plotW - 4, Y: y(limit) - 4, Anchor: "end", Class: "note",
			Text: "spark.executor.memory " + fmtBytes(limit)})
	}
}

// heapLine draws executor id's heap readings, the i-th series: a line,
// a dot per reading (the first 500) and a legend entry (the first 24).
func (c *svgChart) heapLine(i int, id string, readings []chart.Reading, x, y func(int64) float64, start int64) {
	col := seriesColor(i)
	name := "executor " + id
	if id == "driver" {
		name = "driver"
	}
	var xs, ys []float64
	var peak int64
	for k, s := range readings {
		xs = append(xs, x(s.T))
		ys = append(ys, y(s.Bytes))
		peak = maxInt64(peak, s.Bytes)
		if k < 500 {
			c.Rects = append(c.Rects, svgRect{X: x(s.T) - 2.5, Y: y(s.Bytes) - 2.5, W: 5, H: 5, Fill: col,
				Tip: fmt.Sprintf("%s: JVM heap %s at +%s", name, fmtBytes(s.Bytes), fmtDuration(s.T-start))})
		}
	}
	c.Lines = append(c.Lines, svgLine{Points: points(xs, ys), Class: "series", Stroke: col,
		Tip: fmt.Sprintf("%s: peak JVM heap %s", name, fmtBytes(peak))})
	if i < 24 {
		c.Legend = append(c.Legend, legendItem{Color: col, Label: name})
	}
}

// byteStep is a round axis step in binary units (1, 2 or 5 × KiB/MiB/GiB
// multiples) giving about n ticks.
func byteStep(span float64, n int) float64 {
	unit := 1.0
	for span/unit >= 1024 && unit < 1<<40 {
		unit *= 1024
	}
	return niceStep(span/unit, n) * unit
}

// zoom picks the stretch of the application a chart shows, as offsets
// from its start: from the earliest of starts to the latest of ends (times
// ≤ 0 are unknown), padded by 3%, so that a few seconds of stages in an
// hour-long shell session are still readable.
func zoom(r *analyze.Result, starts, ends []int64) (from, to int64) {
	span := r.EndTime - r.StartTime
	from, to = span, 0
	for _, t := range starts {
		if t > 0 {
			from = min(from, t-r.StartTime)
		}
	}
	for _, t := range ends {
		if t > 0 {
			to = max(to, t-r.StartTime)
		}
	}
	if to <= from {
		return 0, span
	}
	pad := (to - from) * 3 / 100
	return max(from-pad, 0), min(to+pad, span)
}

// timeX maps an epoch time onto the plot showing offsets from..to.
func timeX(start, from, to int64) func(int64) float64 {
	return func(t int64) float64 {
		off := min(max(t-start, from), to)
		return labelW + plotW*float64(off-from)/float64(max(to-from, 1))
	}
}

// axisNote says what the time axis shows.
func axisNote(from, to, span int64) string {
	if from == 0 && to == span {
		return "time since the application started"
	}
	return fmt.Sprintf("time since the application started, zoomed to +%s – +%s of %s", fmtDuration(from), fmtDuration(to), fmtDuration(span))
}

func maxInt64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// durationHeatmap draws chart.Durations: finished task attempts per
// executor (rows) and duration bucket (columns), plus failed attempts.
func durationHeatmap(in *Input) svgChart {
	c := svgChart{ID: "heatmap", Title: "Task durations per executor", Width: chartW}
	if in.Attempt == nil {
		c.Empty = "No task data."
		return c
	}
	rows := chart.Durations(in.Attempt)
	if len(rows) == 0 {
		c.Empty = "No task finished."
		return c
	}
	hidden := 0
	if len(rows) > maxRows {
		hidden, rows = len(rows)-maxRows, rows[:maxRows]
	}
	maxCount := 1
	for _, rw := range rows {
		for _, n := range rw.Counts {
			maxCount = max(maxCount, n)
		}
	}
	buckets := chart.DurationBuckets()
	cols := len(buckets) + 1
	cellW := float64(plotW) / float64(cols)
	rowH := 22.0
	if len(rows) > 30 {
		rowH = 12
	}
	const top = 24.0
	for j := 0; j < cols; j++ {
		label := "failed"
		if j < len(buckets) {
			label = buckets[j].Label
		}
		c.Texts = append(c.Texts, svgText{X: labelW + cellW*(float64(j)+0.5), Y: top - 8, Anchor: "middle", Class: "tick", Text: label})
	}
	for i, rw := range rows {
		c.heatRow(rw, top+float64(i)*rowH, rowH, cellW, maxCount)
	}
	c.Height = int(top+float64(len(rows))*rowH) + 8
	if hidden > 0 {
		c.Texts = append(c.Texts, svgText{X: labelW, Y: float64(c.Height) + 10, Class: "note",
			Text: fmt.Sprintf("%d more executors not drawn", hidden)})
		c.Height += 20
	}
	return c
}

// heatRow draws one executor's row of the duration heatmap at y; the
// column labels are c's first texts.
func (c *svgChart) heatRow(rw chart.DurationRow, y, rowH, cellW float64, maxCount int) {
	cols := len(rw.Counts)
	name := "executor " + rw.ExecutorID
	if rw.ExecutorID == "driver" {
		name = "driver"
	}
	c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y + rowH/2 + 4, Anchor: "end", Class: "label",
		Text: fmt.Sprintf("%s (%d)", truncate(name, 16), rw.Total)})
	for j, n := range rw.Counts {
		cx := labelW + cellW*float64(j)
		fill := "#ffffff"
		if n > 0 {
			// Square-root scale keeps single stragglers visible next to
			// thousands of short tasks.
			fill = heatColor(0.12 + 0.88*sqrtRatio(n, maxCount))
			if j == cols-1 {
				fill = "#d55e00"
			}
		}
		c.Rects = append(c.Rects, svgRect{X: cx + 1, Y: y + 1, W: cellW - 2, H: rowH - 2, Fill: fill, Class: "cell",
			Tip: fmt.Sprintf("%s: %d task attempts %s", name, n, c.Texts[j].Text)})
		if n > 0 && rowH >= 18 {
			cls := "cell-n"
			if sqrtRatio(n, maxCount) > 0.45 || j == cols-1 {
				cls = "cell-n light"
			}
			c.Texts = append(c.Texts, svgText{X: cx + cellW/2, Y: y + rowH/2 + 4, Anchor: "middle", Class: cls, Text: fmt.Sprint(n)})
		}
	}
}

func sqrtRatio(n, m int) float64 {
	if m <= 0 {
		return 0
	}
	return math.Sqrt(float64(n) / float64(m))
}
