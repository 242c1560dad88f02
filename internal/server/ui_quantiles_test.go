package server

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/web/ui"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// quantileSource names, for each row of the stage page's task quantiles
// table, the taskSummary field it shows (group "" for a top-level one) and
// the field of the records shown beside a size.
var quantileSource = map[string][2]string{
	"Duration": {"", "duration"}, "Run time": {"", "executorRunTime"}, "GC time": {"", "jvmGcTime"},
	"Scheduler delay": {"", "schedulerDelay"}, "Deserialization": {"", "executorDeserializeTime"},
	"Result serialization": {"", "resultSerializationTime"}, "Getting result": {"", "gettingResultTime"},
	"fleet.Peak execution memory": {"", "peakExecutionMemory"}, "Input": {"inputMetrics", "bytesRead"},
	"Shuffle read": {"shuffleReadMetrics", "readBytes"}, "Shuffle remote reads": {"shuffleReadMetrics", "remoteBytesRead"},
	"Shuffle fetch wait": {"shuffleReadMetrics", "fetchWaitTime"},
	"Shuffle write":      {"shuffleWriteMetrics", "writeBytes"}, "Shuffle write time": {"shuffleWriteMetrics", "writeTime"},
	"Output":         {"outputMetrics", "bytesWritten"},
	"Spill (memory)": {"", "memoryBytesSpilled"}, "Spill (disk)": {"", "diskBytesSpilled"},
}

var quantileRecords = map[string][2]string{
	"Input": {"inputMetrics", "recordsRead"}, "Shuffle read": {"shuffleReadMetrics", "readRecords"},
	"Shuffle write": {"shuffleWriteMetrics", "writeRecords"}, "Output": {"outputMetrics", "recordsWritten"},
}

// summaryValues reads one metric's quantiles out of a taskSummary document.
func summaryValues(t *testing.T, doc map[string]json.RawMessage, src [2]string) []float64 {
	t.Helper()
	raw := doc[src[1]]
	if src[0] != "" {
		var group map[string]json.RawMessage
		if err := json.Unmarshal(doc[src[0]], &group); err != nil {
			t.Fatalf("taskSummary %s: %v", src[0], err)
		}
		raw = group[src[1]]
	}
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("taskSummary %s.%s: %v", src[0], src[1], err)
	}
	return v
}

// TestStageQuantilesMatchHistoryServer opens, by clicking from the fleet
// page, the two stages whose task summaries Spark's own HistoryServerSuite
// records, and checks every cell of the task quantiles table: min, 25th,
// median, 75th and max are the API's taskSummary at 0, .25, .5, .75 and 1
// (the quantiles Spark's stage page shows), and the 25th, median and 75th
// are the History Server's own answer for the same stage (its golden file
// holds .05, .25, .5, .75, .95). A metric left out of the table is zero for
// every task.
func TestStageQuantilesMatchHistoryServer(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"))
	ts.waitIdle(t)
	c := sparktest.StartPage(t, bin, 1280, 900)
	const app = "local-1430917381534"
	qunit := ui.Funcs()["qunit"].(func(string, float64) string)
	for _, tt := range []struct {
		stage  int
		golden string
	}{{0, "stage_task_summary_w_shuffle_write_expectation.json"}, {1, "stage_task_summary_w_shuffle_read_expectation.json"}} {
		t.Run(fmt.Sprint("stage ", tt.stage), func(t *testing.T) {
			raw, err := os.ReadFile(sparktest.Path(t, "HistoryServerExpectations", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			var golden, api map[string]json.RawMessage
			if err := json.Unmarshal(raw, &golden); err != nil {
				t.Fatal(err)
			}
			ts.getJSON(t, fmt.Sprintf("/api/v1/applications/%s/stages/%d/0/taskSummary?quantiles=0,0.25,0.5,0.75,1", app, tt.stage), &api)

			c.Navigate(ts.url + "/")
			c.Click(`tr[data-app="` + app + `"] a`)
			c.Click(fmt.Sprintf(`a.stage-link[href="/apps/%s/stages/%d/0"]`, app, tt.stage))
			var rows [][]string
			if err := json.Unmarshal(c.Eval(`[...document.querySelectorAll("#quantiles tbody tr")].map(tr => [...tr.cells].map(td => td.textContent))`), &rows); err != nil {
				t.Fatal(err)
			}
			shown := map[string]bool{}
			for _, row := range rows {
				name, hasRecords := strings.CutSuffix(row[0], " / records")
				src, ok := quantileSource[name]
				if !ok || len(row) != 6 || hasRecords != (quantileRecords[name] != [2]string{}) {
					t.Errorf("unknown quantile row %q", row)
					continue
				}
				shown[name] = true
				unit := "ms"
				if strings.Contains(src[1], "ytes") || src[1] == "peakExecutionMemory" {
					unit = "bytes"
				}
				scale := 1.0
				if src[1] == "writeTime" {
					scale = 1e-6 // nanoseconds, shown in ms as Spark's stage page does
				}
				mine, hs := summaryValues(t, api, src), summaryValues(t, golden, src)
				var myRecords, hsRecords []float64
				if hasRecords {
					myRecords, hsRecords = summaryValues(t, api, quantileRecords[name]), summaryValues(t, golden, quantileRecords[name])
				}
				cell := func(v []float64, r []float64, i int) string {
					s := qunit(unit, v[i]*scale)
					if r != nil {
						s += fmt.Sprintf(" / %.0f", r[i])
					}
					return s
				}
				for i := range 5 {
					if want := cell(mine, myRecords, i); row[i+1] != want {
						t.Errorf("%s column %d: %q, the API's taskSummary says %q", row[0], i+1, row[i+1], want)
					}
				}
				for i := 1; i <= 3; i++ { // 25th, median, 75th
					if want := cell(hs, hsRecords, i); row[i+1] != want {
						t.Errorf("%s quantile %v: %q, Spark's History Server says %q", row[0], []float64{0, .25, .5, .75, 1}[i], row[i+1], want)
					}
				}
			}
			for name, src := range quantileSource {
				if v := summaryValues(t, api, src); !shown[name] && v[4] != 0 {
					t.Errorf("%s: not in the table, but its largest task value is %v", name, v[4])
				}
			}
			if len(shown) < 6 {
				t.Errorf("%d quantile rows, want every metric the stage's tasks have", len(shown))
			}
			c.Screenshot(fmt.Sprintf("stage-%d-quantiles", tt.stage))
			c.CheckFits("stage page", 1280)
		})
	}
}
