package analyze

// MemorySizing compares the memory the executors used with what the
// application asked for each of them, and what a smaller ask would save.
// Peaks are Spark's executor metrics (the most any executor reached): the
// JVM heap in use includes garbage not yet collected, so a heap sized
// from its peak is on the safe side.
type MemorySizing struct {
	Executors int // executors with memory peaks in the log

	HeapBytes     int64 // asked: spark.executor.memory
	PeakHeapBytes int64 // used: the largest JVMHeapMemory peak
	// OffHeapBytes is what the container holds beyond the heap for the
	// JVM's own memory (spark.executor.memoryOverhead, with
	// spark.memory.offHeap.size when enabled); PeakOffHeapBytes the
	// largest JVMOffHeapMemory peak (metaspace, code cache, direct
	// buffers).
	OffHeapBytes     int64
	PeakOffHeapBytes int64

	// Headroom is the share kept above the peak heap in SuggestedHeapBytes
	// (rounded up to 256 MiB, at least 512 MiB); 0 suggested when the
	// heap is not oversized or must not shrink (Keep says why).
	Headroom           float64
	SuggestedHeapBytes int64
	Keep               string
	// ExecutorHours is Σ executor lifetime in hours; SavedGiBHours the
	// heap a suggested ask saves, in GiB × those hours.
	ExecutorHours float64
	SavedGiBHours float64
}

// sizingHeadroom is the share of the peak heap kept free: room for a
// larger input than this run's and for GC to work without pressure.
const sizingHeadroom = 0.25

// minSuggestedHeap is the least heap suggested: Spark needs 1.5 × its
// 300 MiB reserve, and a JVM below this spends its time collecting.
const minSuggestedHeap = 512 * mib

// memorySizing sizes the executors of r; nil without executor memory
// peaks (logs before Spark 3.0, or local mode, where the driver runs the
// tasks in the heap spark.driver.memory sets).
func memorySizing(r *Result) *MemorySizing {
	m := &MemorySizing{HeapBytes: r.Config.ExecutorMemoryBytes, OffHeapBytes: r.Config.ExecutorOverheadBytes + r.Config.OffHeapBytes,
		Headroom: sizingHeadroom}
	var lifetimeMs int64
	var gc, run int64
	var spill bool
	for i := range r.Executors {
		e := &r.Executors[i]
		if e.ID == "driver" {
			continue
		}
		lifetimeMs += e.LifetimeMs
		gc, run = gc+e.GCShareMs, run+e.RunTimeMs
		if !e.HasPeaks || e.PeakJVMHeapBytes <= 0 {
			continue
		}
		m.Executors++
		m.PeakHeapBytes = max(m.PeakHeapBytes, e.PeakJVMHeapBytes)
		m.PeakOffHeapBytes = max(m.PeakOffHeapBytes, e.PeakJVMOffHeapBytes)
		if e.Loss.Cause == CauseJVMOOM || e.Loss.Cause == CauseContainerMemory || e.OOMTaskErrors > 0 {
			m.Keep = "an executor ran out of memory"
		}
	}
	if m.Executors == 0 || m.HeapBytes <= 0 {
		return nil
	}
	for i := range r.Stages {
		spill = spill || r.Stages[i].DiskSpilledBytes > 0
	}
	m.ExecutorHours = float64(lifetimeMs) / 3.6e6
	switch {
	case m.Keep != "":
	case spill:
		m.Keep = "stages spilled to disk: a smaller heap would spill more"
	case Ratio(gc, run) >= 0.10:
		m.Keep = "GC took 10 % or more of the run time: the heap is not too large"
	}
	suggested := max(roundUp(int64(float64(m.PeakHeapBytes)*(1+sizingHeadroom)), 256*mib), minSuggestedHeap)
	if m.Keep == "" && suggested*4 <= m.HeapBytes*3 { // saves a quarter or more
		m.SuggestedHeapBytes = suggested
		m.SavedGiBHours = float64(m.HeapBytes-suggested) / float64(gib) * m.ExecutorHours
	}
	switch {
	case m.Keep != "" || m.SuggestedHeapBytes > 0:
	case suggested == minSuggestedHeap:
		m.Keep = "it is close to the 512 MiB a JVM executor should have at least"
	default:
		m.Keep = "the peak heap with its headroom needs most of what was asked"
	}
	return m
}

func roundUp(v, step int64) int64 { return (v + step - 1) / step * step }
