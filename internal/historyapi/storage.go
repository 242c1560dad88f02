package historyapi

import "github.com/sparkdx/sparkdx/internal/model"

// rddList lists the RDDs with cached partitions, as /storage/rdd does.
func rddList(a *model.Attempt) []any {
	out := []any{}
	for _, r := range a.RDDs {
		if len(r.Partitions) > 0 {
			out = append(out, rddInfo(a, r, true))
		}
	}
	return out
}

func rddInfo(a *model.Attempt, r *model.RDD, details bool) *Obj {
	o := obj().Set("id", r.ID).Set("name", r.Name).Set("numPartitions", r.NumPartitions).
		Set("numCachedPartitions", len(r.Partitions)).Set("storageLevel", r.StorageLevel).
		Set("memoryUsed", r.MemoryUsed).Set("diskUsed", r.DiskUsed)
	if !details {
		return o
	}
	if len(r.Distributions) > 0 {
		ds := []any{}
		for _, d := range r.Distributions {
			ex := a.Executor(d.ExecutorID)
			if ex == nil {
				continue
			}
			x := obj().Set("address", ex.HostPort).Set("memoryUsed", d.MemoryUsed).
				Set("memoryRemaining", ex.MaxMemory-ex.MemoryUsed).Set("diskUsed", d.DiskUsed)
			if ex.HasMemoryInfo() {
				x.Set("onHeapMemoryUsed", d.OnHeapUsed).Set("offHeapMemoryUsed", d.OffHeapUsed).
					Set("onHeapMemoryRemaining", ex.TotalOnHeap-ex.UsedOnHeap).
					Set("offHeapMemoryRemaining", ex.TotalOffHeap-ex.UsedOffHeap)
			}
			ds = append(ds, x)
		}
		o.Set("dataDistribution", ds)
	}
	ps := []any{}
	for _, p := range r.Partitions {
		ps = append(ps, obj().Set("blockName", p.BlockName).Set("storageLevel", p.StorageLevel).
			Set("memoryUsed", p.MemoryUsed).Set("diskUsed", p.DiskUsed).Set("executors", stringsAny(p.Executors)))
	}
	o.Set("partitions", ps)
	return o
}
