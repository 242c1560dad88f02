package agent

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/jvm/hsperf"
)

// JVM is what a HotSpot JVM publishes in its hsperfdata file: collectors,
// memory pools, classes, threads, safepoints and JIT time.
type JVM struct {
	HsperfPath         string  `json:"hsperfPath"`
	Collector          string  `json:"collector,omitempty"` // GC policy (Copy:MSC, ParScav:MSC, GarbageFirst); empty for ZGC
	StartTime          int64   `json:"startTime"`
	GC                 []GC    `json:"gc"`
	Memory             []Pool  `json:"memory"`
	HeapUsedBytes      uint64  `json:"heapUsedBytes"`
	HeapCommittedBytes uint64  `json:"heapCommittedBytes"`
	HeapMaxBytes       uint64  `json:"heapMaxBytes"`
	OldGenUsedBytes    uint64  `json:"oldGenUsedBytes"`
	OldGenMaxBytes     uint64  `json:"oldGenMaxBytes"`
	ClassesLoaded      uint64  `json:"classesLoaded"`
	ClassesUnloaded    uint64  `json:"classesUnloaded"`
	ThreadsLive        uint64  `json:"threadsLive"`
	ThreadsDaemon      uint64  `json:"threadsDaemon"`
	ThreadsPeak        uint64  `json:"threadsPeak"`
	Safepoints         uint64  `json:"safepoints"`
	SafepointSeconds   float64 `json:"safepointSeconds"`
	JITCompileSeconds  float64 `json:"jitCompileSeconds"`
	JITCompilations    uint64  `json:"jitCompilations"`
	JITBailouts        uint64  `json:"jitBailouts,omitempty"`
	// JITCodeBytes is the machine code compiled since start, summed
	// (sun.ci.nmethodCodeSize): hsperfdata has no code cache gauge, so
	// this and the reserved size are what the agent can say about it.
	JITCodeBytes uint64 `json:"jitCodeBytes"`
	// CodeCacheReservedBytes is -XX:ReservedCodeCacheSize when the JVM
	// was started with it; omitted when the JVM chose its default.
	CodeCacheReservedBytes uint64 `json:"codeCacheReservedBytes,omitempty"`
}

// GC is one garbage collector's cumulative work.
type GC struct {
	Name        string  `json:"name"`
	Kind        string  `json:"kind"` // young, full or concurrent, as jstat's YGC, FGC and CGC
	Collections uint64  `json:"collections"`
	Seconds     float64 `json:"seconds"`
}

// Pool is one memory area: a heap generation or space, metaspace or the
// compressed class space.
type Pool struct {
	Name           string `json:"name"`
	Type           string `json:"type"` // heap or non_heap
	UsedBytes      uint64 `json:"usedBytes"`
	CommittedBytes uint64 `json:"committedBytes"`
	MaxBytes       uint64 `json:"maxBytes,omitempty"`
}

// jvmCollector reads a JVM's hsperfdata file, inside its container when it
// runs in one.
type jvmCollector struct {
	procRoot string
}

// collect returns the JVM section of a process, or why there is none (no
// file, -XX:-UsePerfData, a stale file left by an earlier JVM with the same
// pid). startMillis is the process's start time from /proc.
func (c jvmCollector) collect(pid int, startMillis int64, k *known, errs map[string]int) (*JVM, string) {
	if k.noPerf != "" {
		return nil, k.noPerf
	}
	r := k.hsperf
	if r == nil {
		path, err := hsperf.FindFile(c.procRoot, pid)
		if err != nil {
			if errors.Is(err, hsperf.ErrPerfDataDisabled) {
				k.noPerf = err.Error() // an option the process cannot change
			}
			return nil, err.Error()
		}
		r = hsperf.NewReader(path)
	}
	path := r.Path()
	snap, err := r.Read()
	if err != nil && k.hsperf != nil {
		// The remembered file went away; look again.
		k.hsperf.Close()
		k.hsperf = nil
		return c.collect(pid, startMillis, k, errs)
	}
	if err != nil {
		r.Close()
		if !errors.Is(err, hsperf.ErrNotInitialized) { // a JVM still starting is not a failure
			errs["hsperf"]++
		}
		return nil, err.Error()
	}
	if snap.Partial != nil {
		// A JVM adding counters while we read; what was read is consistent.
		errs["hsperf_partial"]++
	}
	k.hsperf = r
	hj := snap.JVM()
	// The JVM starts after its process; a file from before the process
	// started belongs to a dead JVM that had the same pid.
	if vm := hj.StartTime.UnixMilli(); startMillis > 0 && !hj.StartTime.IsZero() && vm+2000 < startMillis {
		return nil, fmt.Sprintf("hsperf: %s is stale: its JVM started at %d, the process at %d", path, vm, startMillis)
	}
	return fromHsperf(path, &hj), ""
}

// fromHsperf keeps what the agent reports of hsperf's typed view.
func fromHsperf(path string, hj *hsperf.JVM) *JVM {
	j := &JVM{
		HsperfPath:             path,
		Collector:              hj.Collector,
		HeapUsedBytes:          nonNeg(hj.Heap.Used),
		HeapCommittedBytes:     nonNeg(hj.Heap.Committed),
		HeapMaxBytes:           nonNeg(hj.Heap.Max),
		OldGenUsedBytes:        nonNeg(hj.Heap.OldUsed),
		OldGenMaxBytes:         nonNeg(hj.Heap.OldMax),
		ClassesLoaded:          nonNeg(hj.Classes.Loaded),
		ClassesUnloaded:        nonNeg(hj.Classes.Unloaded),
		ThreadsLive:            nonNeg(hj.Threads.Live),
		ThreadsDaemon:          nonNeg(hj.Threads.Daemon),
		ThreadsPeak:            nonNeg(hj.Threads.Peak),
		Safepoints:             nonNeg(hj.Safepoints.Count),
		SafepointSeconds:       seconds(hj.Safepoints.Time),
		JITCompileSeconds:      seconds(hj.JIT.CompileTime),
		JITCompilations:        nonNeg(hj.JIT.Compiles),
		JITBailouts:            nonNeg(hj.JIT.Bailouts),
		JITCodeBytes:           nonNeg(hj.JIT.CodeBytes),
		CodeCacheReservedBytes: nonNeg(hj.JIT.ReservedCodeCache),
	}
	if !hj.StartTime.IsZero() {
		j.StartTime = hj.StartTime.UnixMilli()
	}
	for _, g := range hj.Collectors {
		j.GC = append(j.GC, GC{Name: g.Name, Kind: string(g.Kind), Collections: nonNeg(g.Invocations), Seconds: seconds(g.Time)})
	}
	names := map[string]bool{}
	for _, g := range hj.Generations {
		for _, s := range g.Spaces {
			name := s.Name
			if len(g.Spaces) == 1 && g.Name != "" {
				name = g.Name // G1 calls its old generation's only space "space"
			}
			if name == "" || names[name] {
				name = fmt.Sprintf("%s-%s", g.Name, s.Name)
			}
			name = strings.ToLower(name) // Shenandoah says "Heap", the others "old"
			names[name] = true
			j.Memory = append(j.Memory, Pool{Name: name, Type: "heap", UsedBytes: nonNeg(s.Used),
				CommittedBytes: nonNeg(s.Capacity), MaxBytes: nonNeg(s.MaxCapacity)})
		}
	}
	if m := hj.Metaspace; m.Capacity > 0 || m.Used > 0 {
		j.Memory = append(j.Memory, Pool{Name: "metaspace", Type: "non_heap", UsedBytes: nonNeg(m.Used),
			CommittedBytes: nonNeg(m.Capacity), MaxBytes: limitOrZero(m.MaxCapacity)})
	}
	if m := hj.ClassSpace; m.Capacity > 0 || m.Used > 0 {
		j.Memory = append(j.Memory, Pool{Name: "compressed_class_space", Type: "non_heap", UsedBytes: nonNeg(m.Used),
			CommittedBytes: nonNeg(m.Capacity), MaxBytes: limitOrZero(m.MaxCapacity)})
	}
	return j
}

func nonNeg(v int64) uint64 {
	if v < 0 {
		return 0
	}
	return uint64(v)
}

// limitOrZero drops the "no limit" maxima HotSpot reports for metaspace
// (near 2^64 rounded down).
func limitOrZero(v int64) uint64 {
	if v <= 0 || v >= 1<<60 {
		return 0
	}
	return uint64(v)
}

func seconds(d time.Duration) float64 { return d.Seconds() }
