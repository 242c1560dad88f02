package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/chart"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
)

// TestAppPageDrawsChartHeap: for every scenario log, the app page's
// memory chart has one line per executor with heap readings and one dot
// per reading of package chart's series, the one the HTML report draws
// (report's TestMemoryChartDrawsChartHeap checks that side).
func TestAppPageDrawsChartHeap(t *testing.T) {
	drawn := 0
	eachScenario(t, func(t *testing.T, a *model.Attempt, d *pipeline.Diagnosis) {
		ids, series := chart.Heap(a)
		v := buildAppView(a, d.Result, false, a.LastUpdated)
		var lines []string
		if v.Memory != nil {
			for _, l := range v.Memory.Lines {
				lines = append(lines, strings.TrimPrefix(l.Label, "executor "))
				if id := strings.TrimPrefix(l.Label, "executor "); len(l.Dots) != len(series[id]) {
					t.Errorf("executor %s: got %d dots, want chart.Heap's %d readings", id, len(l.Dots), len(series[id]))
				}
			}
		}
		want := slices.Sorted(slices.Values(ids))
		if !slices.Equal(lines, want) {
			t.Errorf("got lines for executors %v, want chart.Heap's %v", lines, want)
		}
		if len(ids) > 0 {
			drawn++
		}
	})
	if drawn == 0 {
		t.Error("no scenario log has heap readings, want most (Spark 3+ writes them with each task end)")
	}
}
