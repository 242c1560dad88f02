package main

import (
	"flag"
	"os"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"sync"
)

// oneShotLimit is the soft memory limit of a command that replays a log
// once and exits (analyze, diff, tune, api) when neither GOMEMLIMIT nor
// --memory-limit sets one: issue 37's goal of 256 MB (244 MiB) peak
// resident memory for a 1 GB log, less what the runtime's limit does not
// count (the binary's mapped code and data, free pages not yet returned:
// 18-20 MiB measured), less a tenth for the spread between runs and logs
// (224 MiB gave 241-245 MiB peaks on the 1 GB log, 200 MiB 220 MiB). A
// fraction of the machine's memory would not bound a one-shot command at
// all (a tenth of 24 GiB is 2.4 GiB); the cgroup's share bounds it lower
// in a smaller container. The limit is soft: GOGC stays, the collector
// only runs more often once the heap nears it, and oneShotFloor raises it
// above a model that needs more (docs/performance.md, "A memory limit").
const oneShotLimit = 200 << 20

// addMemoryLimitFlag declares --memory-limit on a one-shot command.
func addMemoryLimitFlag(fs *flag.FlagSet) *string {
	return fs.String("memory-limit", "auto", "soft limit of the Go heap, which collects more often near it (`SIZE`: 512MiB, 2GiB; off; auto: $GOMEMLIMIT if set, else 200MiB or 90% of the container's cgroup memory limit if smaller, raised to 1.5 times the live heap when the model needs more)")
}

// applyOneShotLimit sets the soft memory limit --memory-limit asks for and,
// under "auto", keeps it above what the model needs (oneShotFloor). The
// returned function restores the previous limit: commands run in tests'
// processes too.
func applyOneShotLimit(flagValue string) (restore func(), err error) {
	limit, from, err := memoryLimitUpTo(flagValue, os.Getenv("GOMEMLIMIT"), os.ReadFile, oneShotLimit)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if limit <= 0 {
		return func() {}, nil
	}
	prev := debug.SetMemoryLimit(limit)
	if from != "one-shot default" {
		return func() { debug.SetMemoryLimit(prev) }, nil
	}
	f := newOneShotFloor()
	return func() {
		f.mu.Lock()
		f.stopped = true
		debug.SetMemoryLimit(prev)
		f.mu.Unlock()
	}, nil
}

// oneShotFloor raises the soft memory limit after a collection that
// leaves less than half the live heap below it: a limit under what the
// model holds would have the collector run back to back (the runtime lets
// it take half the CPU), where the goal was only to trim the heap's
// growth. Above the default the heap then grows by half its live size
// between collections, as GOGC=50 would, instead of doubling.
type oneShotFloor struct {
	mu      sync.Mutex // a check does not raise the limit once stopped
	stopped bool
	live    func() int64 // the live heap after the last collection
}

// floorHeadroom is what the limit counts beside the live heap and its
// growth: goroutine stacks, the collector's own structures.
const floorHeadroom = 16 << 20

func newOneShotFloor() *oneShotFloor {
	f := &oneShotFloor{live: liveHeap}
	f.arm()
	return f
}

// liveHeap is the heap the last collection found reachable.
func liveHeap() int64 {
	s := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// arm has the next collection call check: a cleanup runs once the
// sentinel, reachable from nothing, is collected.
func (f *oneShotFloor) arm() {
	runtime.AddCleanup(new([64]byte), func(f *oneShotFloor) { f.check() }, f)
}

func (f *oneShotFloor) check() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	live := f.live()
	if need := live + live/2 + floorHeadroom; need > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(need)
	}
	f.arm()
}
