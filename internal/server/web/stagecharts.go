package web

import (
	"fmt"
	"math"
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/units"
)

// stageCharts are a stage attempt's two pictures of its tasks: how their
// durations spread (a long tail is a straggler or skew) and duration
// against the bytes each task read (skew: the slow tasks are the big
// ones; a straggler: slow without more data).
type stageCharts struct {
	Hist    *histChart
	Scatter *scatterChart
}

type histChart struct {
	W, H       int
	Bars       []histBar
	AxisY      int
	MaxLabel   string // longest duration
	CountLabel string // tallest bar's count
}

type histBar struct {
	X, Y, W, H int
	Label      string
}

type scatterChart struct {
	W, H         int
	Dots         []scatterDot
	AxisY        int
	XLabel       string // bytes at the right end
	YLabel       string // duration at the top
	MedianY      int    // the median duration's line
	MedianLabel  string
	BytesMeasure string // "input" or "shuffle read"
}

type scatterDot struct {
	X, Y  int
	Slow  bool // above 2× the median
	Label string
}

const (
	histW, histH, histBins = 560, 160, 30
	plotPad                = 30
)

// newStageCharts draws the finished task attempts of s; nil with fewer
// than two.
func newStageCharts(s *model.StageAttempt) *stageCharts {
	type task struct {
		ms, bytes int64
		id        int64
		exec      string
	}
	var ts []task
	var input, shuffle int64
	for _, t := range s.Tasks {
		if t.FinishTime == 0 || !t.HasMetrics {
			continue
		}
		m := t.Metrics()
		// A log may say a task ended before it started, or at ±2^63: the
		// picture draws such a task at 0 or at the longest length
		// (model.Span; the API shows the recorded times).
		ts = append(ts, task{ms: model.Span(t.LaunchTime, t.FinishTime), bytes: max(model.SatAdd(m.InputBytesRead, m.ShuffleReadBytes()), 0),
			id: t.TaskID, exec: t.ExecutorID})
		input = model.SatAdd(input, m.InputBytesRead)
		shuffle = model.SatAdd(shuffle, m.ShuffleReadBytes())
	}
	if len(ts) < 2 {
		return nil
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].ms < ts[j].ms })
	maxMs := max(ts[len(ts)-1].ms, 1)
	median := ts[len(ts)/2].ms

	// Histogram: equal-width bins from 0 to the longest task, in float:
	// ms*histBins overflows int64 for durations past 2^58 ms.
	counts := make([]int, histBins)
	bin := func(ms int64) int { return min(int(float64(ms)*histBins/(float64(maxMs)+1)), histBins-1) }
	for _, t := range ts {
		counts[bin(t.ms)]++
	}
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	h := &histChart{W: histW, H: histH, AxisY: histH - 4, MaxLabel: units.Millis(maxMs), CountLabel: fmt.Sprint(top)}
	bw := (histW - 2*plotPad) / histBins
	for i, c := range counts {
		if c == 0 {
			continue
		}
		bh := max(c*(histH-2*plotPad)/top, 1)
		width := (float64(maxMs) + 1) / histBins
		from, to := int64(float64(i)*width), int64(min(float64(i+1)*width, math.MaxInt64))
		h.Bars = append(h.Bars, histBar{X: plotPad + i*bw, Y: histH - plotPad - bh, W: max(bw-1, 1), H: bh,
			Label: fmt.Sprintf("%d task(s) of %s–%s", c, units.Millis(from), units.Millis(to))})
	}

	// Scatter: duration against bytes read, when tasks read any.
	var sc *scatterChart
	maxBytes := int64(0)
	for _, t := range ts {
		maxBytes = max(maxBytes, t.bytes)
	}
	if maxBytes > 0 {
		sc = &scatterChart{W: histW, H: histH, AxisY: histH - 4, XLabel: units.Bytes(maxBytes), YLabel: units.Millis(maxMs),
			MedianLabel: "median " + units.Millis(median), BytesMeasure: "input"}
		if shuffle > input {
			sc.BytesMeasure = "shuffle read"
		}
		y := func(ms int64) int { return histH - plotPad - int(float64(ms)*float64(histH-2*plotPad)/float64(maxMs)) }
		sc.MedianY = y(median)
		step := max(1, len(ts)/2000) // at most 2,000 dots: the shape shows, the page stays light
		for i := 0; i < len(ts); i += step {
			t := ts[i]
			x := plotPad + int(math.Round(float64(t.bytes)*float64(histW-2*plotPad)/float64(maxBytes)))
			sc.Dots = append(sc.Dots, scatterDot{X: x, Y: y(t.ms), Slow: t.ms > 2*median,
				Label: fmt.Sprintf("task %d on executor %s: %s, %s", t.id, t.exec, units.Millis(t.ms), units.Bytes(t.bytes))})
		}
		if last := ts[len(ts)-1]; step > 1 { // the longest task is always drawn
			x := plotPad + int(math.Round(float64(last.bytes)*float64(histW-2*plotPad)/float64(maxBytes)))
			sc.Dots = append(sc.Dots, scatterDot{X: x, Y: y(last.ms), Slow: last.ms > 2*median,
				Label: fmt.Sprintf("task %d on executor %s: %s, %s", last.id, last.exec, units.Millis(last.ms), units.Bytes(last.bytes))})
		}
	}
	return &stageCharts{Hist: h, Scatter: sc}
}
