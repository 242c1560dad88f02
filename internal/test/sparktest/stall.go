package sparktest

import (
	"os"
	"time"
)

// stallWatch tells a program that is slow to start, as any JVM is on a
// loaded machine, from one that stalled: a wait on a program fails when
// the program has made no progress for a while (quiet), or after a
// generous limit in all, instead of after a fixed time that load exceeds.
type stallWatch struct {
	start, last time.Time
	quiet       time.Duration
	limit       time.Duration
	size        int64
	count       int
}

// newStallWatch starts a watch: stalled after quiet without progress or
// limit in all.
func newStallWatch(quiet, limit time.Duration) *stallWatch {
	now := time.Now()
	return &stallWatch{start: now, last: now, quiet: quiet, limit: limit, size: -1, count: -1}
}

// observe records progress: count (what the wait counts, e.g. the
// applications listed) above its last value, or the logs' total size (a
// starting JVM logs each step) above theirs.
func (w *stallWatch) observe(count int, logs ...string) {
	var size int64
	for _, l := range logs {
		if st, err := os.Stat(l); err == nil {
			size += st.Size()
		}
	}
	if count > w.count || size > w.size {
		w.last = time.Now()
	}
	w.count, w.size = max(w.count, count), max(w.size, size)
}

// stalled says whether the wait should give up.
func (w *stallWatch) stalled() bool {
	return time.Since(w.last) >= w.quiet || time.Since(w.start) >= w.limit
}

// String says how long the wait lasted and when it last saw progress.
func (w *stallWatch) String() string {
	return "after " + time.Since(w.start).Round(time.Second).String() + ", its last progress " +
		time.Since(w.last).Round(time.Second).String() + " before"
}

// progressBuffer is a driver's output, written by two pipes' copiers and
// read for its size while they write (the name cluster.go uses: its
// source is part of every live verdict's key).
type progressBuffer = SyncBuffer
