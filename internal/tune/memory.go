package tune

import (
	"fmt"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

// reservedHeap is the heap Spark keeps out of its unified memory
// (UnifiedMemoryManager.RESERVED_SYSTEM_MEMORY_BYTES).
const reservedHeap = 300 * mib

// defaultFraction is spark.memory.fraction's default.
const defaultFraction = 0.6

// spillStages are the stages that spilled to disk.
func (in *input) spillStages() []*analyze.Stage {
	var out []*analyze.Stage
	for i := range in.res.Stages {
		if s := &in.res.Stages[i]; s.DiskSpilledBytes > 0 {
			out = append(out, s)
		}
	}
	return out
}

// spillMs estimates the time a stage's tasks spent spilling: the run
// time that was neither CPU time, fetch wait nor GC — the disk writes and
// reads of the spill files — plus nothing for the serialization CPU
// (Spark times neither; this is the lower bound it allows).
func spillMs(s *analyze.Stage) int64 {
	return max(s.RunTimeTotalMs-s.CPUTimeMs-s.FetchWaitMs-s.GCTimeMs, 0)
}

// spillEffect is the wall and core time saved when the spilling stages'
// tasks get share (≤ 1) of the memory they lacked.
func (in *input) spillEffect(stages []*analyze.Stage, share float64) (Effect, []int, map[int]int64) {
	var e Effect
	var ids []int
	per := map[int]int64{}
	for _, s := range stages {
		ms := int64(float64(spillMs(s)) * min(share, 1))
		w := ms / int64(max(min(s.NumTasks, in.cores()), 1))
		e.CoreMs -= ms
		e.WallMs -= w
		per[s.StageID] -= w
		ids = append(ids, s.StageID)
	}
	e.Basis = "the spilling stages' run time outside CPU, fetch wait and GC (the spill files' I/O), ÷ the cores they ran on"
	return e, ids, per
}

// memoryFraction raises spark.memory.fraction back to its default when a
// lower one made stages spill.
func memoryFraction(in *input) ([]Change, []Kept) {
	stages := in.spillStages()
	if len(stages) == 0 {
		return nil, nil
	}
	f, err := strconv.ParseFloat(in.setting("spark.memory.fraction"), 64)
	if err != nil || f >= defaultFraction {
		return nil, []Kept{{"spark.memory.fraction", "at its default or above; executor memory is the lever for the spill"}}
	}
	var spilled int64
	for _, s := range stages {
		spilled += s.DiskSpilledBytes
	}
	e, ids, per := in.spillEffect(stages, 1)
	return []Change{{Property: "spark.memory.fraction", From: in.setting("spark.memory.fraction"), To: "0.6",
		Why: fmt.Sprintf("%d stages spilled %s to disk with %.2f of the heap for execution and storage (default 0.6)",
			len(stages), units.Bytes(spilled), f),
		Evidence: map[string]any{"spilledDiskBytes": spilled, "memoryFraction": f},
		Effect:   e, Stages: ids, perStage: per,
		Risk: "less heap for user objects (UDFs, broadcast variables); an executor near its heap limit may run out of memory"}}, nil
}

// executorMemory right-sizes spark.executor.memory: up when stages
// spilled at the default fraction, down to the peak heap with headroom
// when the analysis found it oversized (analyze.MemorySizing).
func executorMemory(in *input) ([]Change, []Kept) {
	heap := in.res.Config.ExecutorMemoryBytes
	from := in.setting("spark.executor.memory")
	if stages := in.spillStages(); len(stages) > 0 {
		f, err := strconv.ParseFloat(in.setting("spark.memory.fraction"), 64)
		if err != nil || f < defaultFraction || heap <= reservedHeap {
			return nil, nil // the fraction goes first
		}
		perExec := int64(max(in.res.Config.ExecutorCores, 1))
		var need int64 // the most execution memory one task lacked
		for _, s := range stages {
			need = max(need, (s.PeakExecutionMemoryBytes+s.MemorySpilledBytes/int64(max(s.NumTasks, 1)))*perExec)
		}
		to := roundUp(reservedHeap+int64(float64(need)/f), 512*mib)
		to = min(max(to, heap+512*mib), 2*heap) // at most double in one step
		grown := float64(to-heap) / float64(max(to-reservedHeap, 1))
		e, ids, per := in.spillEffect(stages, grown*2)
		return []Change{{Property: "spark.executor.memory", From: from, To: fmtSize(to),
			Why:      fmt.Sprintf("stages spilled to disk at memory fraction %.2f: a task lacked up to %s of execution memory", f, units.Bytes(need)),
			Evidence: map[string]any{"executorMemoryBytes": heap, "neededPerExecutorBytes": need},
			Effect:   e, Stages: ids, perStage: per,
			Risk: "each executor's container grows: fewer executors fit on a node, and the cluster manager may refuse or queue them"}}, nil
	}
	m := in.res.Memory
	if m == nil {
		return nil, []Kept{{"spark.executor.memory", "the log has no executor memory peaks (Spark before 3.0, or local mode)"}}
	}
	if m.SuggestedHeapBytes <= 0 {
		return nil, []Kept{{"spark.executor.memory", m.Keep}}
	}
	return []Change{{Property: "spark.executor.memory", From: from, To: fmtSize(m.SuggestedHeapBytes),
		Why: fmt.Sprintf("the largest heap any of %d executors used was %s of the %s asked; %.0f %% headroom kept",
			m.Executors, units.Bytes(m.PeakHeapBytes), units.Bytes(heap), 100*m.Headroom),
		Evidence: map[string]any{"peakHeapBytes": m.PeakHeapBytes, "heapBytes": heap, "savedGiBHours": m.SavedGiBHours},
		Effect:   Effect{MemoryGBHours: -m.SavedGiBHours, Basis: "memory only: the same work in a smaller heap (no spill or GC pressure was seen)"},
		Risk:     "a larger input than this run's may need the heap back: watch spill and GC on the next runs"}}, nil
}

// memoryOverhead right-sizes spark.executor.memoryOverhead from the
// process tree's peak resident memory beyond the heap (JVM native memory,
// Python workers, other children), when the log has it.
func memoryOverhead(in *input) ([]Change, []Kept) {
	cfg := in.res.Config
	var peak int64 // the most memory beyond the heap any executor's processes held
	seen := false
	for _, e := range in.res.Executors {
		if e.ID == "driver" || !e.HasPeaks || e.PeakJVMRSSBytes <= 0 {
			continue
		}
		seen = true
		beyond := max(e.PeakJVMRSSBytes-cfg.ExecutorMemoryBytes, e.PeakJVMOffHeapBytes) + e.PeakPythonRSSBytes + e.PeakOtherRSSBytes
		peak = max(peak, beyond)
	}
	if !seen {
		return nil, []Kept{{"spark.executor.memoryOverhead", "the log has no process-tree memory (spark.executor.processTreeMetrics.enabled)"}}
	}
	need := max(roundUp(int64(float64(peak)*1.5), 128*mib), 384*mib)
	switch {
	case need > cfg.ExecutorOverheadBytes:
		return []Change{{Property: "spark.executor.memoryOverhead", From: fmtSize(cfg.ExecutorOverheadBytes), To: fmtSize(need),
			Why:      fmt.Sprintf("executor processes held up to %s beyond the heap, with 50 %% headroom over the %s overhead", units.Bytes(peak), units.Bytes(cfg.ExecutorOverheadBytes)),
			Evidence: map[string]any{"peakBeyondHeapBytes": peak, "overheadBytes": cfg.ExecutorOverheadBytes},
			Effect:   Effect{Basis: "none on time: the container stops being at risk of a memory kill"},
			Risk:     "each container grows by the difference"}}, nil
	case need*4 <= cfg.ExecutorOverheadBytes*3:
		return []Change{{Property: "spark.executor.memoryOverhead", From: fmtSize(cfg.ExecutorOverheadBytes), To: fmtSize(need),
			Why:      fmt.Sprintf("executor processes held at most %s beyond the heap; the overhead keeps 50 %% above that", units.Bytes(peak)),
			Evidence: map[string]any{"peakBeyondHeapBytes": peak, "overheadBytes": cfg.ExecutorOverheadBytes},
			Effect:   Effect{Basis: "memory only"},
			Risk:     "native memory grows with input (netty buffers, Python workers): a container may be killed for memory on a bigger run"}}, nil
	}
	return nil, []Kept{{"spark.executor.memoryOverhead", fmt.Sprintf("its %s fits the %s peak beyond the heap", units.Bytes(cfg.ExecutorOverheadBytes), units.Bytes(peak))}}
}
