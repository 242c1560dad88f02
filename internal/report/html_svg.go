package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// svgChart is a chart as shapes with their geometry already computed; one
// template draws every chart, and html/template escapes every string in it.
type svgChart struct {
	ID     string
	Title  string // the chart's accessible name
	Width  int
	Height int
	Grid   []svgLine // drawn first, under everything
	Rects  []svgRect
	Lines  []svgLine
	Texts  []svgText
	Empty  string // shown instead of the chart when there is nothing to draw
	Legend []legendItem
}

type svgRect struct {
	X, Y, W, H float64
	Class      string
	Fill       string // explicit colour (heatmaps); empty uses the class
	Tip        string // tooltip (SVG <title>)
}

type svgLine struct {
	Points string // "x,y x,y ..."
	Class  string
	Stroke string
	Dash   bool
	Tip    string
}

type svgText struct {
	X, Y   float64
	Anchor string // start | middle | end
	Class  string
	Text   string
}

type legendItem struct {
	Class, Color, Label string
}

// points formats a polyline's points.
func points(xs, ys []float64) string {
	var b strings.Builder
	for i := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(xs[i], 'f', 1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(ys[i], 'f', 1, 64))
	}
	return b.String()
}

// niceStep is a round tick step (1, 2 or 5 × 10^k) giving about n ticks.
func niceStep(span float64, n int) float64 {
	if span <= 0 || n <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// timeTicks are round tick offsets (ms from the app start) within
// [from, to], about n of them.
func timeTicks(from, to int64, n int) []int64 {
	if to <= from {
		return []int64{from}
	}
	units := []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000,
		60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000}
	step := units[len(units)-1]
	for _, u := range units {
		if (to-from)/u <= int64(n) {
			step = u
			break
		}
	}
	var ts []int64
	for t := (from + step - 1) / step * step; t <= to; t += step {
		ts = append(ts, t)
	}
	return ts
}

// fmtTick labels a time offset compactly for an axis.
func fmtTick(ms int64) string {
	switch {
	case ms == 0:
		return "0"
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"
	case ms < 3_600_000 && ms%60_000 == 0:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms < 3_600_000:
		return fmt.Sprintf("%dm%02ds", ms/60_000, ms%60_000/1000)
	case ms%3_600_000 == 0:
		return fmt.Sprintf("%dh", ms/3_600_000)
	}
	return fmt.Sprintf("%dh%02dm", ms/3_600_000, ms%3_600_000/60_000)
}

// timeAxis adds a time axis at y under a plot spanning x0..x0+w that
// shows offsets from..to (ms since the app start), with grid lines up to
// gridTop.
func (c *svgChart) timeAxis(x0, w, y, gridTop float64, from, to int64) {
	for _, t := range timeTicks(from, to, max(int(w/90), 2)) {
		x := x0 + w*float64(t-from)/float64(max(to-from, 1))
		c.Grid = append(c.Grid, svgLine{Points: points([]float64{x, x}, []float64{gridTop, y}), Class: "grid"})
		c.Texts = append(c.Texts, svgText{X: x, Y: y + 14, Anchor: "middle", Class: "tick", Text: fmtTick(t)})
	}
	c.Lines = append(c.Lines, svgLine{Points: points([]float64{x0, x0 + w}, []float64{y, y}), Class: "axis"})
}

// palette are distinct series colours (Okabe–Ito, colour-blind safe, then more).
var palette = []string{"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442",
	"#000000", "#8c564b", "#7f7f7f", "#17becf", "#bcbd22"}

func seriesColor(i int) string {
	if i < len(palette) {
		return palette[i]
	}
	return "#bbbbbb"
}

// heatColor maps 0..1 to a white → dark blue ramp.
func heatColor(v float64) string {
	v = min(max(v, 0), 1)
	lo := [3]float64{239, 243, 255}
	hi := [3]float64{8, 48, 107}
	var c [3]int
	for i := range c {
		c[i] = int(lo[i] + (hi[i]-lo[i])*v + 0.5)
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}
