package chart

import (
	"context"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// replayed is the model of one shared real log.
func replayed(t testing.TB, path ...string) *model.Attempt {
	t.Helper()
	logs, err := eventlog.Open(context.Background(), sparktest.Path(t, path...), eventlog.OpenOptions{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("open %v: %d logs, %v", path, len(logs), err)
	}
	a, _, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestHeap: each executor's readings in time order, none above the
// executor's own peak heap; no model, no readings.
func TestHeap(t *testing.T) {
	a := replayed(t, "extra", "historical", "spark-events", "application_1538416563558_0014")
	ids, series := Heap(a)
	if len(ids) == 0 {
		t.Fatal("got no executor with heap readings, want some (the log has executor metrics)")
	}
	for _, id := range ids {
		ss := series[id]
		var peak int64
		for i, s := range ss {
			if i > 0 && s.T < ss[i-1].T {
				t.Errorf("executor %s: got readings out of time order at %d", id, i)
			}
			peak = max(peak, s.Bytes)
		}
		if e := a.Executor(id); e != nil && e.Peak.Set {
			if want := e.Peak.Values[0]; peak > want {
				t.Errorf("executor %s: got a reading %d above the executor's peak heap %d", id, peak, want)
			}
		}
	}
	if _, s := Heap(nil); len(s) != 0 {
		t.Errorf("got readings without a model")
	}
}
