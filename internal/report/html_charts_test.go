package report

import (
	"fmt"
	"strings"
	"testing"
)

// TestDurationHeatmapCounts checks the heatmap's cells add up to the
// finished task attempts of the log, failed ones in the last column.
func TestDurationHeatmapCounts(t *testing.T) {
	for _, rel := range []string{"spark-events/local-1430917381534", "spark-events/app-20161115172038-0000",
		"extra/historical/spark-events/application_1538416563558_0014"} {
		t.Run(goldenName(rel), func(t *testing.T) {
			in := realInput(t, rel)
			var finished, failed int
			for _, s := range in.Attempt.Stages {
				for _, k := range s.Tasks {
					if k.FinishTime != 0 {
						finished++
						if k.Failed {
							failed++
						}
					}
				}
			}
			c := durationHeatmap(in)
			var cells, failedCells int
			for _, txt := range c.Texts {
				if !strings.HasPrefix(txt.Class, "cell-n") {
					continue
				}
				var n int
				fmt.Sscan(txt.Text, &n)
				cells += n
			}
			for _, r := range c.Rects {
				if r.Fill == "#d55e00" {
					var n int
					fmt.Sscanf(r.Tip[strings.Index(r.Tip, ": ")+2:], "%d", &n)
					failedCells += n
				}
			}
			if cells != finished {
				t.Errorf("got %d task attempts in the cells, want %d finished", cells, finished)
			}
			if failedCells != failed {
				t.Errorf("got %d in the failed column, want %d", failedCells, failed)
			}
		})
	}
}

// TestMemorySeries checks heap readings come from task ends and stage
// executor metrics, in time order, and peak at the executor's peak.
func TestTimeTicks(t *testing.T) {
	tests := []struct {
		from, to int64
		n        int
		want     string
	}{
		{0, 10_000, 5, "[0 2000 4000 6000 8000 10000]"},
		{18_500, 22_900, 10, "[18500 19000 19500 20000 20500 21000 21500 22000 22500]"},
		{0, 3_600_000, 6, "[0 600000 1200000 1800000 2400000 3000000 3600000]"},
		{5, 5, 3, "[5]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(timeTicks(tt.from, tt.to, tt.n)); got != tt.want {
			t.Errorf("timeTicks(%d, %d, %d): got %s, want %s", tt.from, tt.to, tt.n, got, tt.want)
		}
	}
	for ms, want := range map[int64]string{0: "0", 500: "500ms", 1500: "1.5s", 120_000: "2m", 90_000: "1m30s", 7_200_000: "2h"} {
		if got := fmtTick(ms); got != want {
			t.Errorf("fmtTick(%d): got %q, want %q", ms, got, want)
		}
	}
}
