package sparktest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestStallWatch: a wait goes on while what it counts or the logs grow,
// and gives up after quiet without either, or after its limit.
func TestStallWatch(t *testing.T) {
	log := filepath.Join(t.TempDir(), "daemon.log")
	if err := os.WriteFile(log, []byte("starting\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	grow := func() {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("one more line\n")
		f.Close()
	}
	for _, c := range []struct {
		name    string
		step    func(w *stallWatch) // after the watch saw count 1 and the log, its last progress set 2 h back
		stalled bool
	}{
		{"nothing moved", func(w *stallWatch) { w.observe(1, log) }, true},
		{"the count grew", func(w *stallWatch) { w.observe(2, log) }, false},
		{"the count fell", func(w *stallWatch) { w.observe(0, log) }, true},
		{"the log grew", func(w *stallWatch) { grow(); w.observe(1, log) }, false},
		{"the log is gone", func(w *stallWatch) { w.observe(1) }, true},
		{"progress past the limit", func(w *stallWatch) { w.start = w.start.Add(-5 * time.Hour); w.observe(2, log) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newStallWatch(time.Hour, 4*time.Hour)
			w.observe(1, log)
			if w.stalled() {
				t.Fatalf("stalled at once (%s)", w)
			}
			w.last = w.last.Add(-2 * time.Hour)
			c.step(w)
			if got := w.stalled(); got != c.stalled {
				t.Errorf("stalled = %v, want %v (%s)", got, c.stalled, w)
			}
		})
	}
}

// TestProgressBuffer: the driver's two pipes write while the watch reads
// the size.
func TestProgressBuffer(t *testing.T) {
	var b progressBuffer
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("0123456789"))
				_ = b.size()
			}
		}()
	}
	wg.Wait()
	if got := b.size(); got != 2000 || len(b.String()) != 2000 {
		t.Errorf("size %d, String %d bytes, want 2000", got, len(b.String()))
	}
}
