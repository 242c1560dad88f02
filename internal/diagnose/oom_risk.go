package diagnose

import (
	"fmt"
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

var heapPeak = Threshold{Metric: "peak JVMHeapMemory ÷ heap size", Warning: 0.90, Critical: 0.95,
	Source: "DataFlint MemoryAlertsReducer (95 %); 90 % ours"}

var containerPeak = Threshold{Metric: "peak process-tree RSS (JVM + Python + other) ÷ container", Warning: 0.90, Critical: 0.95,
	Source: "ours"}

// OOMRisk reports executors (and the driver) whose peak memory came close to their limit.
var OOMRisk = &Rule{
	ID:     "oom-risk",
	Title:  "Close to out of memory",
	Recipe: "troubleshoot/oom-and-spill.md",
	Doc: "Peak JVM heap near spark.executor.memory (or spark.driver.memory), or process-tree RSS near the " +
		"container size. Heap samples include uncollected garbage, so the heap arm is critical only with major GCs.",
	Thresholds: []Threshold{heapPeak, containerPeak},
	Run:        runOOMRisk,
}

// runOOMRisk reports the executors close to their memory limit, one
// finding per severity (foldExecutors), worst first.
func runOOMRisk(p *Pass) []Finding {
	c := p.Result.Config
	type candidate struct {
		f    Finding
		peak float64
	}
	var cands []candidate
	for i := range p.Result.Executors {
		e := &p.Result.Executors[i]
		if !e.HasPeaks {
			continue
		}
		heapLimit, container := c.ExecutorMemoryBytes, c.ContainerBytes()
		name := "Executor " + e.ID
		if e.ID == "driver" {
			heapLimit, container, name = c.DriverMemoryBytes, 0, "The driver"
		}
		heapRatio := analyze.Ratio(e.PeakJVMHeapBytes, heapLimit)
		heapSev := heapPeak.Level(heapRatio)
		// Used heap includes garbage: critical only with major GCs or with
		// the executor's GC time at the gc-pressure warning level.
		gcBound := e.RunTimeMs >= 5*minute && analyze.Ratio(e.GCTimeMs, e.RunTimeMs) >= 0.10
		if heapSev == Critical && e.MajorGCCount == 0 && !gcBound {
			heapSev = Warning
		}
		rss := e.PeakJVMRSSBytes + e.PeakPythonRSSBytes + e.PeakOtherRSSBytes
		rssRatio := analyze.Ratio(rss, container)
		rssSev := None
		if e.PeakJVMRSSBytes > 0 {
			rssSev = containerPeak.Level(rssRatio)
		}
		sev := max(heapSev, rssSev)
		if sev == None {
			continue
		}
		cands = append(cands, candidate{peak: max(heapRatio, rssRatio), f: Finding{Severity: sev, ExecutorIDs: []string{e.ID},
			Detail: fmt.Sprintf("%s peaked at %s heap of %s (%.0f%%) and %s process RSS of a %s container (%.0f%%).",
				name, units.Bytes(e.PeakJVMHeapBytes), units.Bytes(heapLimit), 100*heapRatio, units.Bytes(rss),
				units.Bytes(container), 100*rssRatio),
			Evidence: map[string]any{"executorId": e.ID, "peakJvmHeapBytes": e.PeakJVMHeapBytes, "heapBytes": heapLimit,
				"heapRatio": round(heapRatio), "peakRssBytes": rss, "containerLimitBytes": container,
				"rssRatio": round(rssRatio), "majorGcCount": e.MajorGCCount}}})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].peak > cands[j].peak })
	fs := make([]Finding, len(cands))
	for i, c := range cands {
		fs[i] = c.f
	}
	return foldExecutors(fs, "came close to their memory limit")
}
