package web

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparkdx/sparkdx/internal/chart"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
)

// TestAppPageDrawsChartModels: for every scenario log, the app page's
// stage timeline draws one bar per chart.Stages bar, in its order, from
// its start to its end (the report's TestStageTimelineDrawsChartStages
// checks the other renderer), and its heatmap one row per chart.SlotBusy
// row with each bucket's busy share.
func TestAppPageDrawsChartModels(t *testing.T) {
	eachScenario(t, func(t *testing.T, a *model.Attempt, d *pipeline.Diagnosis) {
		v := buildAppView(a, d.Result, false, a.LastUpdated)
		span := max(v.End-v.Start, 1)
		x := xScale(v.Start, span)
		bars := chart.Stages(d.Result)
		var got []bar
		if v.Gantt != nil {
			got = v.Gantt.Bars
		}
		if len(got) != len(bars) {
			t.Fatalf("got %d stage bars, want chart.Stages' %d", len(got), len(bars))
		}
		for i, b := range bars {
			s := b.Stage
			label := fmt.Sprintf("stage %d.%d %s — %s, %d tasks", s.StageID, s.AttemptID, s.Name, s.Status, s.NumTasks)
			if g := got[i]; g.Label != label || g.X != x(b.Start) || g.Width != max(x(b.End)-x(b.Start), 2) {
				t.Errorf("bar %d: got %q at x %d width %d, want %q from x %d to %d", i, g.Label, g.X, g.Width, label, x(b.Start), x(b.End))
			}
		}
		checkHeatmap(t, v.Heat, chart.SlotBusy(a, v.Start, span, heatBuckets), span)
	})
}

// eachScenario runs check on the model and diagnosis of every scenario
// log.
func eachScenario(t *testing.T, check func(t *testing.T, a *model.Attempt, d *pipeline.Diagnosis)) {
	logs, _ := filepath.Glob("../../../testdata/scenarios/*/spark-*/app-*")
	if len(logs) < 20 {
		t.Fatalf("found %d scenario logs, want the library's", len(logs))
	}
	for _, path := range logs {
		rel, _ := filepath.Rel("../../../testdata/scenarios", path)
		t.Run(rel, func(t *testing.T) {
			a, d := diagnoseLog(t, path)
			check(t, a, d)
		})
	}
}

// checkHeatmap: one row per chart.SlotBusy row, in order, each cell
// shaded by its bucket's busy share.
func checkHeatmap(t *testing.T, h *heatmap, rows []chart.SlotRow, span int64) {
	t.Helper()
	var gotRows []heatRow
	var cells []heatCell
	if h != nil {
		gotRows, cells = h.Rows, h.Cells
	}
	if len(gotRows) != len(rows) || len(cells) != len(rows)*heatBuckets {
		t.Fatalf("got %d heatmap rows and %d cells, want chart.SlotBusy's %d rows × %d", len(gotRows), len(cells), len(rows), heatBuckets)
	}
	bucketMs := max(span/heatBuckets, 1)
	for i, r := range rows {
		if want := "executor " + r.ExecutorID; gotRows[i].Label != want {
			t.Errorf("row %d: got %q, want %q", i, gotRows[i].Label, want)
		}
		for b := range heatBuckets {
			if got, want := cells[i*heatBuckets+b].A, strconv.FormatFloat(0.06+0.94*r.Busy(b, bucketMs), 'f', 2, 64); got != want {
				t.Errorf("executor %s bucket %d: got shade %s, want %s", r.ExecutorID, b, got, want)
			}
		}
	}
}
