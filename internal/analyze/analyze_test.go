package analyze_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// replayShared reads one shared log (relative to the Spark test data dir).
func replayShared(t testing.TB, rel ...string) *model.Attempt {
	t.Helper()
	path := sparktest.Path(t, rel...)
	logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := replay.Log(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sharedLogs lists every application log in the shared test data.
func sharedLogs(t *testing.T) []string {
	t.Helper()
	root := sparktest.Spark(t)
	var out []string
	for _, dir := range []string{"spark-events", "extra/historical/spark-events", "extra/sql-core-spark-events",
		"extra/spark-events-broken/last-attempt-incomplete", "extra/spark-events-broken/previous-attempt-incomplete"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// TestInvariants checks, on every shared log, what must hold for any app:
// the phases add up to the duration, the timeline is contiguous, the
// what-if never beats the critical path, utilisation is a fraction.
func TestInvariants(t *testing.T) {
	for _, rel := range sharedLogs(t) {
		t.Run(rel, func(t *testing.T) {
			r := analyze.Analyze(replayShared(t, rel))
			p := r.Phases
			if sum := p.ResourceWaitMs + p.ComputeMs + p.OutputWriteMs + p.DriverOnlyMs; sum != r.DurationMs {
				t.Errorf("phases add up to %d, want duration %d (%+v)", sum, r.DurationMs, p)
			}
			at := r.StartTime
			for _, iv := range r.Timeline {
				if iv.Start != at || iv.End <= iv.Start {
					t.Fatalf("timeline gap or empty interval at %d: %+v", at, iv)
				}
				at = iv.End
			}
			if len(r.Timeline) > 0 && at != r.EndTime {
				t.Errorf("timeline ends at %d, want %d", at, r.EndTime)
			}
			checkWhatIfRows(t, r)
			prev := int64(-1)
			for _, w := range r.WhatIf {
				if w.EstimatedMs < r.CriticalPath.CriticalPathMs {
					t.Errorf("what-if %.1f×: %d ms beats the critical path %d ms", w.Factor, w.EstimatedMs, r.CriticalPath.CriticalPathMs)
				}
				// More executors may be slower by their start-ups, no more.
				if prev >= 0 && w.EstimatedMs > prev+r.CriticalPath.ColdStartMs {
					t.Errorf("what-if %.1f×: %d ms, more than with fewer executors (%d ms)", w.Factor, w.EstimatedMs, prev)
				}
				prev = w.EstimatedMs
			}
			for _, e := range r.Executors {
				if e.Utilization < 0 || e.Utilization > 1 {
					t.Errorf("executor %s utilization %v", e.ID, e.Utilization)
				}
			}
		})
	}
}

// checkWhatIfRows checks the what-if's rows are keyed by what they
// simulate: one per executors × cores, the recorded run among them with
// the application's wall time, local mode one JVM whose cores scale.
func checkWhatIfRows(t *testing.T, r *analyze.Result) {
	t.Helper()
	labels := map[string]bool{}
	actual := 0
	for _, w := range r.WhatIf {
		if labels[w.Label()] {
			t.Errorf("what-if: two rows simulate %s", w.Label())
		}
		labels[w.Label()] = true
		if w.Actual {
			actual++
			if w.EstimatedMs != r.DurationMs || w.Factor != 1 {
				t.Errorf("what-if: the actual row %+v, want 1× at the app's %d ms", w, r.DurationMs)
			}
		}
		if w.Local && w.Executors != 1 {
			t.Errorf("what-if: local mode row %+v, want one JVM", w)
		}
	}
	if len(r.WhatIf) > 0 && actual != 1 {
		t.Errorf("what-if: %d actual rows in %+v, want 1", actual, r.WhatIf)
	}
}

// TestWhatIfLocalMode: a local[*] driver on 12 cores is one executor of
// 12 cores; half of it is local[6], not "1 executor" twice.
func TestWhatIfLocalMode(t *testing.T) {
	r := analyze.Analyze(replayShared(t, "spark-events", "local-1430917381534"))
	var got []string
	for _, w := range r.WhatIf {
		got = append(got, fmt.Sprintf("%s %v", w.Label(), w.Actual))
	}
	if want := []string{"local[6] false", "local[12] true", "local[24] false", "local[48] false"}; !slices.Equal(got, want) {
		t.Errorf("got what-if rows %v, want %v", got, want)
	}
}

// goldenStage is the part of the History Server's stage JSON compared.
type goldenStage struct {
	StageID, AttemptID                   int
	NumCompleteTasks, NumFailedTasks     int
	ExecutorRunTime, JvmGcTime           int64
	InputBytes, OutputBytes              int64
	ShuffleReadBytes, ShuffleWriteBytes  int64
	MemoryBytesSpilled, DiskBytesSpilled int64
}

// TestStageTotalsMatchHistoryServer compares stage totals with the History
// Server's own answers for the same logs.
func TestStageTotalsMatchHistoryServer(t *testing.T) {
	for _, c := range []struct{ log, golden string }{
		{"local-1422981780767", "stage_list_json_expectation.json"},
		{"app-20200706201101-0003", "stage_list_with_peak_metrics_expectation.json"},
	} {
		t.Run(c.log, func(t *testing.T) {
			b, err := os.ReadFile(sparktest.Path(t, "HistoryServerExpectations", c.golden))
			if err != nil {
				t.Fatal(err)
			}
			var golden []goldenStage
			if err := json.Unmarshal(b, &golden); err != nil {
				t.Fatal(err)
			}
			r := analyze.Analyze(replayShared(t, "spark-events", c.log))
			for _, g := range golden {
				var s *analyze.Stage
				for i := range r.Stages {
					if r.Stages[i].StageID == g.StageID && r.Stages[i].AttemptID == g.AttemptID {
						s = &r.Stages[i]
					}
				}
				if s == nil {
					t.Fatalf("stage %d.%d missing", g.StageID, g.AttemptID)
				}
				got := goldenStage{StageID: s.StageID, AttemptID: s.AttemptID, NumCompleteTasks: s.Succeeded,
					NumFailedTasks: s.Failed, ExecutorRunTime: s.RunTimeTotalMs, JvmGcTime: s.GCTimeMs,
					InputBytes: s.InputBytes, OutputBytes: s.OutputBytes, ShuffleReadBytes: s.ShuffleReadBytes,
					ShuffleWriteBytes: s.ShuffleWriteBytes, MemoryBytesSpilled: s.MemorySpilledBytes,
					DiskBytesSpilled: s.DiskSpilledBytes}
				if got != g {
					t.Errorf("stage %d.%d: got %+v, want %+v", g.StageID, g.AttemptID, got, g)
				}
			}
		})
	}
}

// TestExecutorLossFromLog checks the exit-56 executors of a real YARN log
// against the log's own ExecutorRemoved and TaskEnd events.
func TestExecutorLossFromLog(t *testing.T) {
	rel := []string{"extra", "historical", "spark-events", "application_1538416563558_0014"}
	raw, err := os.ReadFile(sparktest.Path(t, rel...))
	if err != nil {
		t.Fatal(err)
	}
	removed := map[string]bool{}
	lostTasks := map[string]int{}
	for _, ln := range strings.Split(string(raw), "\n") {
		var ev struct {
			Event      string
			ExecutorID string `json:"Executor ID"`
			Reason     struct {
				Reason     string
				ExecutorID string `json:"Executor ID"`
				ByApp      bool   `json:"Exit Caused By App"`
			} `json:"Task End Reason"`
		}
		if json.Unmarshal([]byte(ln), &ev) != nil {
			continue
		}
		switch {
		case ev.Event == "SparkListenerExecutorRemoved":
			removed[ev.ExecutorID] = true
		case ev.Event == "SparkListenerTaskEnd" && ev.Reason.Reason == "ExecutorLostFailure" && ev.Reason.ByApp:
			lostTasks[ev.Reason.ExecutorID]++
		}
	}
	if len(removed) != 8 {
		t.Fatalf("log has %d removed executors, want 8", len(removed))
	}
	r := analyze.Analyze(replayShared(t, rel...))
	seen := 0
	for _, e := range r.Executors {
		if !removed[e.ID] {
			if e.Loss.Cause != analyze.CauseNone {
				t.Errorf("executor %s not removed, got cause %q", e.ID, e.Loss.Cause)
			}
			continue
		}
		seen++
		want := analyze.Loss{Cause: analyze.CauseHeartbeat, ExitCode: 56, CausedByApp: lostTasks[e.ID] > 0,
			FailedTasks: lostTasks[e.ID]}
		if e.Loss != want {
			t.Errorf("executor %s: got %+v, want %+v", e.ID, e.Loss, want)
		}
	}
	if seen != 8 {
		t.Errorf("got %d removed executors, want 8", seen)
	}
}

// TestPhasesOfKnownLogs checks phases against times read off the logs.
func TestPhasesOfKnownLogs(t *testing.T) {
	// application_1628109047826_1317105: app start 1628637983553 (hand-checked
	// from SparkListenerApplicationStart); the first executor arrives 71342 ms
	// later and no stage runs before it.
	r := analyze.Analyze(replayShared(t, "spark-events", "application_1628109047826_1317105"))
	if r.Phases.FirstExecutorDelayMs != 71342 || r.Phases.ResourceWaitMs < 71342 {
		t.Errorf("got first executor delay %d, resource wait %d; want 71342 and at least that",
			r.Phases.FirstExecutorDelayMs, r.Phases.ResourceWaitMs)
	}
	s := r.Stages[0]
	if s.SpeculativeTasks != 1 || s.Killed != 1 || s.SpeculationWasteMs != 53201 {
		t.Errorf("stage 0: got %d speculative, %d killed, %d ms wasted; want 1, 1, 53201",
			s.SpeculativeTasks, s.Killed, s.SpeculationWasteMs)
	}
	// The stage was submitted at 1628638073488 and its first task launched
	// 397 ms later; Spark's UI counts its duration from that launch.
	if s.QueuedMs != 397 || r.Phases.ComputeMs != s.QueuedMs+s.DurationMs {
		t.Errorf("got compute %d ms, want the only stage's %d ms queued + %d ms duration (397 queued)",
			r.Phases.ComputeMs, s.QueuedMs, s.DurationMs)
	}
}
