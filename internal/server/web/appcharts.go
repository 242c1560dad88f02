package web

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/chart"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/units"
)

// The app page's charts: the stage timeline (Gantt), executor memory
// and agent series, and the task heatmap, drawn as SVG coordinates.

const chartW, labelW = 1000, 180

type bar struct {
	X, Y, Width         int
	Color, Label, Short string
}

type gantt struct {
	W, H, AxisY, LabelX, EndX int
	Span                      int64
	Phases                    []bar // the phase timeline lane
	Bars                      []bar
}

var phaseColors = map[analyze.Phase]string{analyze.PhaseResourceWait: "#f59e0b", analyze.PhaseCompute: "#3b82f6",
	analyze.PhaseOutputWrite: "#8b5cf6", analyze.PhaseDriverOnly: "#94a3b8"}

var phaseLabels = map[analyze.Phase]string{analyze.PhaseResourceWait: "waiting for executors", analyze.PhaseCompute: "computing",
	analyze.PhaseOutputWrite: "writing output", analyze.PhaseDriverOnly: "driver only"}

type memLine struct {
	Color, Label, Points string
	Dots                 []dot
}

type dot struct{ X, Y int }

type memChart struct {
	W, H, AxisY int
	MaxLabel    string
	Source      string
	Lines       []memLine
}

// agentChart is one metric agents sent, one line per executor.
type agentChart struct {
	Title string
	Chart *memChart
}

// agentMetrics are the agent metrics the app page draws, in order.
var agentMetrics = []struct {
	metric, title string
	format        func(float64) string
}{
	{"jvm.memory.used{heap}", "JVM heap used", fmtBytes},
	{"jvm.memory.used{non_heap}", "JVM non-heap used (metaspace, code cache, class space)", fmtBytes},
	{"jvm.memory.used{code_cache}", "Code cache used (Spark's JvmSource)", fmtBytes},
	{"spark.executor.memory.usage{OnHeapExecutionMemory}", "Execution memory in use (on-heap)", fmtBytes},
	{"spark.executor.memory.usage{OnHeapStorageMemory}", "Storage memory in use (on-heap)", fmtBytes},
	{"jvm.buffer.memory.used{direct}", "Direct buffers in use", fmtBytes},
	{"jvm.gc.duration", "GC time (cumulative)", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "s" }},
	{"jvm.class.count", "Classes loaded", func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }},
	{"sparkdx.process.tree.memory.usage{python}", "Python workers RSS", fmtBytes},
	{"process.memory.usage", "Process RSS", fmtBytes},
}

func fmtBytes(v float64) string { return units.Bytes(int64(v)) }

type heatCell struct {
	X, Y, Wd int
	A        string
	Label    string
}

type heatRow struct {
	Y     int
	Label string
}

type heatmap struct {
	W, H  int
	Cells []heatCell
	Rows  []heatRow
}

var palette = []string{"#2f6fed", "#16a34a", "#d97706", "#dc2626", "#7c3aed", "#0891b2", "#be185d", "#4d7c0f"}

// xScale maps epoch ms in [start, start+span] to chart x.
func xScale(start, span int64) func(int64) int {
	return func(t int64) int {
		return labelW + int(float64(min(max(t-start, 0), span))*float64(chartW-labelW-10)/float64(span))
	}
}

// stageGantt draws chart.Stages, one row each below the phase lane.
func stageGantt(r *analyze.Result, x func(int64) int, span int64) *gantt {
	bars := chart.Stages(r)
	if len(bars) == 0 {
		return nil
	}
	g := &gantt{W: chartW, Span: span, LabelX: labelW, EndX: chartW - 10}
	for i, b := range bars {
		i++ // row 0 is the phase lane
		s := b.Stage
		color := "#3b82f6"
		switch {
		case b.Running:
			color = "#93c5fd"
		case s.Status == model.StageFailed:
			color = "#dc2626"
		case s.Status == model.StageSkipped:
			color = "#cbd5e1"
		}
		x0, x1 := x(b.Start), x(b.End)
		short := units.ShortName(fmt.Sprintf("%d: %s", s.StageID, s.Name), 28)
		g.Bars = append(g.Bars, bar{X: x0, Y: 6 + i*18, Width: max(x1-x0, 2), Color: color, Short: short,
			Label: fmt.Sprintf("stage %d.%d %s — %s, %d tasks", s.StageID, s.AttemptID, s.Name, s.Status, s.NumTasks)})
	}
	g.H = 6 + (len(bars)+1)*18 + 20
	g.AxisY = g.H - 6
	return g
}

// pt is one value at one time.
type pt struct {
	t int64
	v float64
}

// logHeapSeries is each executor's JVM heap peaks as the event log
// records them, at task and stage ends: package chart's series, the one
// the HTML report draws.
func logHeapSeries(a *model.Attempt) map[string][]pt {
	_, heap := chart.Heap(a)
	series := make(map[string][]pt, len(heap))
	for id, rs := range heap {
		for _, r := range rs {
			series[id] = append(series[id], pt{r.T, float64(r.Bytes)})
		}
	}
	return series
}

// drawMemory draws one line of bytes per executor.
func drawMemory(series map[string][]pt, source string, x func(int64) int) *memChart {
	return drawSeries(series, source, fmtBytes, x)
}

// drawSeries draws one line per executor, scaled to the largest value.
func drawSeries(series map[string][]pt, source string, format func(float64) string, x func(int64) int) *memChart {
	if len(series) == 0 {
		return nil
	}
	var maxV float64
	ids := make([]string, 0, len(series))
	for id, ps := range series {
		ids = append(ids, id)
		sort.Slice(ps, func(i, j int) bool { return ps[i].t < ps[j].t })
		for _, p := range ps {
			maxV = max(maxV, p.v)
		}
	}
	if maxV <= 0 {
		return nil // logs without executor memory metrics report zeros
	}
	sort.Strings(ids)
	c := &memChart{W: chartW, H: 160, AxisY: 154, MaxLabel: format(maxV), Source: source}
	for i, id := range ids {
		var b strings.Builder
		l := memLine{Color: palette[i%len(palette)], Label: "executor " + id}
		for _, p := range series[id] {
			y := 10 + int((maxV-p.v)*130/maxV)
			b.WriteString(strconv.Itoa(x(p.t)) + "," + strconv.Itoa(y) + " ")
			l.Dots = append(l.Dots, dot{x(p.t), y})
		}
		l.Points = b.String()
		c.Lines = append(c.Lines, l)
	}
	return c
}

const heatBuckets = 60

// taskHeatmap draws chart.SlotBusy: per executor and time bucket, the
// share of the executor's task slots busy.
func taskHeatmap(a *model.Attempt, start, span int64) *heatmap {
	rows := chart.SlotBusy(a, start, span, heatBuckets)
	if len(rows) == 0 {
		return nil
	}
	h := &heatmap{W: chartW, H: 6 + len(rows)*18}
	cellW := (chartW - labelW - 10) / heatBuckets
	bucketMs := max(span/heatBuckets, 1)
	for i, r := range rows {
		y := 4 + i*18
		h.Rows = append(h.Rows, heatRow{Y: y, Label: "executor " + r.ExecutorID})
		for b := range r.BusyMs {
			frac := r.Busy(b, bucketMs)
			h.Cells = append(h.Cells, heatCell{X: labelW + b*cellW, Y: y, Wd: cellW - 1, A: strconv.FormatFloat(0.06+0.94*frac, 'f', 2, 64),
				Label: fmt.Sprintf("executor %s: %.0f%% of %d slots busy", r.ExecutorID, frac*100, r.Slots)})
		}
	}
	return h
}
