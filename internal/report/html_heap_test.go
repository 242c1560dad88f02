package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/chart"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestMemoryChartDrawsChartHeap: for every scenario log, the report's
// memory chart draws one series per executor with heap readings, in
// chart.Heap's order, with one point per reading: package chart's series,
// the one serve's app page draws (web's TestAppPageDrawsChartHeap).
func TestMemoryChartDrawsChartHeap(t *testing.T) {
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
			in := NewInput(a, d.Result, d.Findings, src.Log)
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
}
