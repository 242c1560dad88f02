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

// stageStart is when a stage attempt's bar starts: its submission, or —
// when Spark did not write that time at submission, as Spark 1.x did not
// until the stage completed — its first task's launch.
func stageStart(s *model.StageAttempt) int64 {
	if s.SubmissionTime > 0 {
		return s.SubmissionTime
	}
	return s.FirstLaunchTime
}

func stageGantt(a *model.Attempt, x func(int64) int, end, span int64) *gantt {
	stages := make([]*model.StageAttempt, 0, len(a.Stages))
	for _, s := range a.Stages {
		if stageStart(s) > 0 {
			stages = append(stages, s)
		}
	}
	if len(stages) == 0 {
		return nil
	}
	sort.SliceStable(stages, func(i, j int) bool { return stageStart(stages[i]) < stageStart(stages[j]) })
	g := &gantt{W: chartW, Span: span, LabelX: labelW, EndX: chartW - 10}
	for i, s := range stages {
		i++ // row 0 is the phase lane
		stop := s.CompletionTime
		color := "#3b82f6"
		switch {
		case stop <= 0:
			stop, color = end, "#93c5fd"
		case s.Status == "FAILED":
			color = "#dc2626"
		case s.Status == "SKIPPED":
			color = "#cbd5e1"
		}
		x0, x1 := x(stageStart(s)), x(stop)
		short := units.ShortName(fmt.Sprintf("%d: %s", s.StageID, s.Name), 28)
		g.Bars = append(g.Bars, bar{X: x0, Y: 6 + i*18, Width: max(x1-x0, 2), Color: color, Short: short,
			Label: fmt.Sprintf("stage %d.%d %s — %s, %d tasks", s.StageID, s.AttemptID, s.Name, s.Status, s.NumTasks)})
	}
	g.H = 6 + (len(stages)+1)*18 + 20
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

// taskHeatmap shades, per executor and time bucket, the share of the
// executor's task slots busy.
func taskHeatmap(a *model.Attempt, start, span int64) *heatmap {
	busy := map[string][]int64{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.LaunchTime <= 0 {
				continue
			}
			stop := t.FinishTime
			if stop == 0 {
				stop = start + span
			}
			row := busy[t.ExecutorID]
			if row == nil {
				row = make([]int64, heatBuckets)
				busy[t.ExecutorID] = row
			}
			for b := range heatBuckets {
				b0 := start + span*int64(b)/heatBuckets
				b1 := start + span*int64(b+1)/heatBuckets
				if o := min(stop, b1) - max(t.LaunchTime, b0); o > 0 {
					row[b] += o
				}
			}
		}
	}
	if len(busy) == 0 {
		return nil
	}
	ids := make([]string, 0, len(busy))
	for id := range busy {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		ni, ei := strconv.Atoi(ids[i])
		nj, ej := strconv.Atoi(ids[j])
		if ei == nil && ej == nil {
			return ni < nj
		}
		return ids[i] < ids[j]
	})
	h := &heatmap{W: chartW, H: 6 + len(ids)*18}
	cellW := (chartW - labelW - 10) / heatBuckets
	bucketMs := max(span/heatBuckets, 1)
	for i, id := range ids {
		y := 4 + i*18
		cores := int64(1)
		if e := a.Executor(id); e != nil && e.TotalCores > 0 {
			cores = int64(e.TotalCores)
		}
		h.Rows = append(h.Rows, heatRow{Y: y, Label: "executor " + id})
		for b, ms := range busy[id] {
			frac := min(float64(ms)/float64(bucketMs*cores), 1)
			h.Cells = append(h.Cells, heatCell{X: labelW + b*cellW, Y: y, Wd: cellW - 1, A: strconv.FormatFloat(0.06+0.94*frac, 'f', 2, 64),
				Label: fmt.Sprintf("executor %s: %.0f%% of %d slots busy", id, frac*100, cores)})
		}
	}
	return h
}
