package analyze

import "testing"

// TestMemorySizing pins the right-sizing: a heap used to a quarter gets a
// smaller ask with 25 % headroom and the GiB-hours it saves; one that
// spilled, ran out of memory or collected garbage 10 % of the time keeps
// its ask, saying why; no peaks, no sizing.
func TestMemorySizing(t *testing.T) {
	exec := func(peak int64, f func(*Executor)) Executor {
		e := Executor{ID: "1", HasPeaks: peak > 0, PeakJVMHeapBytes: peak, LifetimeMs: 3_600_000, RunTimeMs: 1000}
		if f != nil {
			f(&e)
		}
		return e
	}
	res := func(es []Executor, spill int64) *Result {
		return &Result{Config: Config{ExecutorMemoryBytes: 8 * gib, ExecutorOverheadBytes: 819 * mib}, Executors: es,
			Stages: []Stage{{StageIO: StageIO{DiskSpilledBytes: spill}}}}
	}
	two := []Executor{exec(1200*mib, nil), exec(900*mib, nil)}
	for _, c := range []struct {
		name      string
		r         *Result
		suggested int64
		saved     float64
		keep      bool
	}{
		// 1.2 GiB peak × 1.25 = 1.5 GiB: 6.5 GiB saved over 2 executor-hours.
		{"oversized", res(two, 0), 1536 * mib, 13, false},
		{"spilled", res(two, 1), 0, 0, true},
		{"gc bound", res([]Executor{exec(1200*mib, func(e *Executor) { e.GCShareMs = 100 })}, 0), 0, 0, true},
		{"oom", res([]Executor{exec(1200*mib, func(e *Executor) { e.OOMTaskErrors = 1 })}, 0), 0, 0, true},
		{"sized right", res([]Executor{exec(7*gib, nil)}, 0), 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := memorySizing(c.r)
			if m == nil {
				t.Fatal("got no sizing, want one")
			}
			if m.SuggestedHeapBytes != c.suggested || m.SavedGiBHours != c.saved || (m.Keep != "") != c.keep {
				t.Errorf("got suggested %d, saved %.2f GiB-h, keep %q; want %d, %.2f, keep %v", m.SuggestedHeapBytes,
					m.SavedGiBHours, m.Keep, c.suggested, c.saved, c.keep)
			}
		})
	}
	if m := memorySizing(res([]Executor{exec(0, nil)}, 0)); m != nil {
		t.Errorf("got %+v without peaks, want nil", m)
	}
}
