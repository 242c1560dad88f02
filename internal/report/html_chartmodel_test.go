package report

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/chart"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// eachScenario runs check on the input of every scenario log.
func eachScenario(t *testing.T, check func(t *testing.T, in *Input)) {
	logs, _ := filepath.Glob("../../testdata/scenarios/*/spark-*/app-*")
	if len(logs) < 20 {
		t.Fatalf("found %d scenario logs, want the library's", len(logs))
	}
	for _, path := range logs {
		rel, _ := filepath.Rel("../../testdata", path)
		t.Run(rel, func(t *testing.T) {
			logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
			if err != nil || len(logs) != 1 {
				t.Fatalf("open: %d logs, %v", len(logs), err)
			}
			a, src, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := pipeline.Diagnose(a, nil, src, nil)
			check(t, NewInput(a, d.Result, d.Findings, src.Log))
		})
	}
}

// TestStageTimelineDrawsChartStages: for every scenario log, the report's
// stage timeline draws one bar per chart.Stages bar (up to maxRows), in its
// order, from its start to its end: the stage timeline serve's app page
// draws (web's TestAppPageDrawsChartStages).
func TestStageTimelineDrawsChartStages(t *testing.T) {
	drawn := 0
	eachScenario(t, func(t *testing.T, in *Input) {
		r := in.Result
		bars := chart.Stages(r)
		if len(bars) > 0 {
			drawn++
		}
		c := stageTimeline(r)
		bars = bars[:min(len(bars), maxRows)]
		if len(c.Rects) != len(bars) {
			t.Fatalf("got %d bars, want chart.Stages' %d", len(c.Rects), len(bars))
		}
		var starts, ends []int64
		for _, b := range bars {
			starts, ends = append(starts, b.Start), append(ends, b.Stage.CompletionTime)
		}
		from, to := zoom(r, starts, ends)
		x := timeX(r.StartTime, from, to)
		for i, b := range bars {
			got := c.Rects[i]
			want := stageLabel(b.Stage) + " "
			if !strings.HasPrefix(got.Tip, want) || got.X != x(b.Start) || got.W != max(x(b.End)-x(b.Start), 1) {
				t.Errorf("bar %d: got %q at x %.1f width %.1f, want %q from x %.1f to %.1f", i, got.Tip, got.X, got.W, want, x(b.Start), x(b.End))
			}
		}
	})
	if drawn == 0 {
		t.Error("no scenario log has a stage bar, want nearly all")
	}
}

// TestDurationHeatmapDrawsChartDurations: for every scenario log, the
// heatmap has one row per chart.Durations row, in its order, and each
// cell says its count.
func TestDurationHeatmapDrawsChartDurations(t *testing.T) {
	eachScenario(t, func(t *testing.T, in *Input) {
		rows := chart.Durations(in.Attempt)
		c := durationHeatmap(in)
		cols := len(chart.DurationBuckets()) + 1
		if len(c.Rects) != len(rows)*cols {
			t.Fatalf("got %d cells, want %d rows of chart.Durations × %d columns", len(c.Rects), len(rows), cols)
		}
		labels := []string{}
		for _, b := range chart.DurationBuckets() {
			labels = append(labels, b.Label)
		}
		labels = append(labels, "failed")
		for i, rw := range rows {
			name := "executor " + rw.ExecutorID
			if rw.ExecutorID == "driver" {
				name = "driver"
			}
			for j, n := range rw.Counts {
				if got, want := c.Rects[i*cols+j].Tip, fmt.Sprintf("%s: %d task attempts %s", name, n, labels[j]); got != want {
					t.Errorf("row %d column %d: got %q, want %q", i, j, got, want)
				}
			}
		}
	})
}
