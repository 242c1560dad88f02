package report

import (
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/chart"
)

// TestMemoryChartDrawsChartHeap: for every scenario log, the report's
// memory chart draws one series per executor with heap readings, in
// chart.Heap's order, with one point per reading: package chart's series,
// the one serve's app page draws (web's TestAppPageDrawsChartHeap).
func TestMemoryChartDrawsChartHeap(t *testing.T) {
	eachScenario(t, func(t *testing.T, in *Input) {
		ids, series := chart.Heap(in.Attempt)
		c := memoryChart(in)
		var lines []svgLine
		for _, l := range c.Lines {
			if l.Class == "series" {
				lines = append(lines, l)
			}
		}
		if len(lines) != len(ids) {
			t.Fatalf("got %d series, want one per executor of chart.Heap (%d)", len(lines), len(ids))
		}
		for i, l := range lines {
			if n := len(strings.Fields(l.Points)); n != len(series[ids[i]]) {
				t.Errorf("executor %s: got %d points, want chart.Heap's %d readings", ids[i], n, len(series[ids[i]]))
			}
		}
	})
}
