package main

import (
	"runtime/debug"
	"testing"
)

// TestApplyOneShotLimit: auto sets the one-shot default unless GOMEMLIMIT
// is set, a size sets that size, off sets none, and the previous limit is
// back after each.
func TestApplyOneShotLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	for _, c := range []struct {
		name, flag, env string
		want            int64 // 0: the limit before
	}{
		{"auto", "auto", "", oneShotLimit},
		{"auto under GOMEMLIMIT", "auto", "1GiB", 0},
		{"a size", "512MiB", "", 512 << 20},
		{"off", "off", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", c.env) // the runtime read it at start: this one is what the flag sees
			restore, err := applyOneShotLimit(c.flag)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want == 0 {
				want = before
			}
			// Under a cgroup limit below the default, auto takes 90% of it.
			if got := debug.SetMemoryLimit(-1); got != want && !(c.flag == "auto" && c.env == "" && got < want) {
				t.Errorf("got limit %d, want %d", got, want)
			}
			restore()
			if got := debug.SetMemoryLimit(-1); got != before {
				t.Errorf("after restore: got limit %d, want %d", got, before)
			}
		})
	}
	if _, err := applyOneShotLimit("lots"); err == nil {
		t.Error("--memory-limit lots: got no error")
	}
}

// TestOneShotFloor: a collection that leaves the live heap within a third
// of the limit raises it to 1.5 times the live heap plus headroom; a small
// heap leaves it; a stopped floor changes nothing.
func TestOneShotFloor(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	for _, c := range []struct {
		name        string
		live, limit int64
		stopped     bool
		want        int64
	}{
		{"model under the limit", 100 << 20, oneShotLimit, false, oneShotLimit},
		{"model near the limit", 200 << 20, oneShotLimit, false, 300<<20 + floorHeadroom},
		{"model past the limit", 1 << 30, oneShotLimit, false, 3<<29 + floorHeadroom},
		{"stopped", 1 << 30, oneShotLimit, true, oneShotLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			debug.SetMemoryLimit(c.limit)
			f := &oneShotFloor{live: func() int64 { return c.live }, stopped: c.stopped}
			f.check()
			f.mu.Lock()
			f.stopped = true // the cleanup check re-armed must not move the limit after the test
			f.mu.Unlock()
			if got := debug.SetMemoryLimit(-1); got != c.want {
				t.Errorf("got limit %d, want %d", got, c.want)
			}
		})
	}
}
