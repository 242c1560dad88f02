package replay

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

// liveRDD is a tracked RDD with its partition and distribution indexes.
type liveRDD struct {
	r     *model.RDD
	parts map[string]*model.RDDPartition
	dists map[string]*model.RDDDistribution
}

// storageLevel renders Spark's StorageLevel.description.
func storageLevel(useDisk, useMemory, offHeap, deserialized bool, replication int) string {
	var b strings.Builder
	if useDisk {
		b.WriteString("Disk ")
	}
	if useMemory {
		if offHeap {
			b.WriteString("Memory (off heap) ")
		} else {
			b.WriteString("Memory ")
		}
	}
	if deserialized {
		b.WriteString("Deserialized ")
	} else {
		b.WriteString("Serialized ")
	}
	b.WriteString(strconv.Itoa(replication))
	b.WriteString("x Replicated")
	return b.String()
}

func (st *state) rddFor(info sparkevent.RDDInfo) *liveRDD {
	if lr := st.rdds[info.ID]; lr != nil {
		return lr
	}
	r := &model.RDD{ID: info.ID, Name: info.Name, NumPartitions: info.NumPartitions,
		StorageLevel: storageLevel(info.UseDisk, info.UseMemory, info.UseOffHeap, info.Deserialized, info.Replication),
		UseDisk:      info.UseDisk, UseMemory: info.UseMemory, UseOffHeap: info.UseOffHeap,
		Deserialized: info.Deserialized, Replication: info.Replication}
	lr := &liveRDD{r: r, parts: map[string]*model.RDDPartition{}, dists: map[string]*model.RDDDistribution{}}
	st.rdds[info.ID] = lr
	st.a.AddRDD(r)
	return lr
}

// setPartition stores a partition's new executors and sizes, deriving its
// effective storage level as Spark's LiveRDDPartition.update does.
func (lr *liveRDD) setPartition(p *model.RDDPartition, executors []string, mem, disk int64) {
	p.Executors, p.MemoryUsed, p.DiskUsed = executors, mem, disk
	p.StorageLevel = storageLevel(disk > 0, mem > 0, lr.r.UseOffHeap, mem > 0 && lr.r.Deserialized, len(executors))
}

func (lr *liveRDD) removePartition(name string) {
	p := lr.parts[name]
	if p == nil {
		return
	}
	delete(lr.parts, name)
	lr.r.Partitions = slices.DeleteFunc(lr.r.Partitions, func(q *model.RDDPartition) bool { return q == p })
}

func (lr *liveRDD) removeDistribution(execID string) bool {
	d := lr.dists[execID]
	if d == nil {
		return false
	}
	delete(lr.dists, execID)
	lr.r.Distributions = slices.DeleteFunc(lr.r.Distributions, func(q *model.RDDDistribution) bool { return q == d })
	return true
}

// addDelta applies a delta without going below zero, as Spark does.
func addDelta(old, delta int64) int64 { return max(0, old+delta) }

func updateExecutorMemory(ex *model.Executor, offHeap bool, mem, disk int64) {
	if ex.HasMemoryInfo() {
		if offHeap {
			ex.UsedOffHeap = addDelta(ex.UsedOffHeap, mem)
		} else {
			ex.UsedOnHeap = addDelta(ex.UsedOnHeap, mem)
		}
	}
	ex.MemoryUsed = addDelta(ex.MemoryUsed, mem)
	ex.DiskUsed = addDelta(ex.DiskUsed, disk)
}

// blockUpdated follows AppStatusListener.onBlockUpdated: RDD blocks update
// the RDD's partitions and distributions and the executor; broadcast blocks
// only the executor's memory; stream blocks are not modelled.
func (st *state) blockUpdated(e sparkevent.BlockUpdated) {
	memDelta, diskDelta := e.MemSize, e.DiskSize
	if !e.UseMemory {
		memDelta = -memDelta
	}
	if !e.UseDisk {
		diskDelta = -diskDelta
	}
	ex := st.liveExecs[e.ExecutorID]
	switch {
	case strings.HasPrefix(e.BlockID, "broadcast_"):
		if ex != nil {
			updateExecutorMemory(ex, e.UseOffHeap, memDelta, diskDelta)
		}
		return
	case !strings.HasPrefix(e.BlockID, "rdd_"):
		return
	}
	rest := strings.TrimPrefix(e.BlockID, "rdd_")
	i := strings.IndexByte(rest, '_')
	if i <= 0 {
		return
	}
	rddID, err := strconv.Atoi(rest[:i])
	if err != nil {
		return
	}
	if ex != nil {
		updateExecutorMemory(ex, e.UseOffHeap, memDelta, diskDelta)
	}
	blocksDelta := 0
	if lr := st.rdds[rddID]; lr != nil {
		p := lr.parts[e.BlockID]
		if p == nil {
			p = &model.RDDPartition{BlockName: e.BlockID}
			lr.setPartition(p, nil, 0, 0)
			lr.parts[e.BlockID] = p
			lr.r.Partitions = append(lr.r.Partitions, p)
		}
		var executors []string
		if (e.UseMemory || e.UseDisk) && e.Replication > 0 {
			executors = p.Executors
			if !slices.Contains(executors, e.ExecutorID) {
				blocksDelta = 1
				executors = append(slices.Clip(executors), e.ExecutorID)
			}
		} else {
			blocksDelta = -1
			executors = slices.DeleteFunc(slices.Clone(p.Executors), func(id string) bool { return id == e.ExecutorID })
		}
		if len(executors) > 0 {
			lr.setPartition(p, executors, addDelta(p.MemoryUsed, memDelta), addDelta(p.DiskUsed, diskDelta))
		} else {
			lr.removePartition(e.BlockID)
		}
		if ex != nil {
			if ex.RDDBlocks+blocksDelta > 0 {
				d := lr.dists[e.ExecutorID]
				if d == nil {
					d = &model.RDDDistribution{ExecutorID: e.ExecutorID}
					lr.dists[e.ExecutorID] = d
					lr.r.Distributions = append(lr.r.Distributions, d)
				}
				d.MemoryUsed = addDelta(d.MemoryUsed, memDelta)
				d.DiskUsed = addDelta(d.DiskUsed, diskDelta)
				if ex.HasMemoryInfo() {
					if e.UseOffHeap {
						d.OffHeapUsed = addDelta(d.OffHeapUsed, memDelta)
					} else {
						d.OnHeapUsed = addDelta(d.OnHeapUsed, memDelta)
					}
				}
			} else {
				lr.removeDistribution(e.ExecutorID)
			}
		}
		lr.r.MemoryUsed = addDelta(lr.r.MemoryUsed, memDelta)
		lr.r.DiskUsed = addDelta(lr.r.DiskUsed, diskDelta)
	}
	if ex != nil {
		ex.RDDBlocks += blocksDelta
	}
}

// unpersist follows onUnpersistRDD: the RDD's blocks leave its executors.
func (st *state) unpersist(id int) {
	lr := st.rdds[id]
	delete(st.rdds, id)
	st.a.RemoveRDD(id)
	if lr == nil {
		return
	}
	for _, p := range lr.r.Partitions {
		for _, eid := range p.Executors {
			if ex := st.liveExecs[eid]; ex != nil {
				ex.RDDBlocks--
			}
		}
	}
	for _, d := range lr.r.Distributions {
		ex := st.liveExecs[d.ExecutorID]
		if ex == nil {
			continue
		}
		if ex.HasMemoryInfo() {
			if lr.r.UseOffHeap {
				ex.UsedOffHeap = addDelta(ex.UsedOffHeap, -d.OffHeapUsed)
			} else {
				ex.UsedOnHeap = addDelta(ex.UsedOnHeap, -d.OnHeapUsed)
			}
		}
		ex.MemoryUsed = addDelta(ex.MemoryUsed, -d.MemoryUsed)
		ex.DiskUsed = addDelta(ex.DiskUsed, -d.DiskUsed)
	}
}

// executorRemovedFromRDDs follows onExecutorRemoved: drop the executor's
// distributions and its share of each cached partition.
func (st *state) executorRemovedFromRDDs(ex *model.Executor) {
	for _, lr := range st.rdds {
		lr.removeDistribution(ex.ID)
		for _, p := range slices.Clone(lr.r.Partitions) {
			if !slices.Contains(p.Executors, ex.ID) {
				continue
			}
			n := int64(len(p.Executors))
			if n == 1 {
				lr.removePartition(p.BlockName)
				lr.r.MemoryUsed = addDelta(lr.r.MemoryUsed, -p.MemoryUsed)
				lr.r.DiskUsed = addDelta(lr.r.DiskUsed, -p.DiskUsed)
				continue
			}
			lr.r.MemoryUsed = addDelta(lr.r.MemoryUsed, -p.MemoryUsed/n)
			lr.r.DiskUsed = addDelta(lr.r.DiskUsed, -p.DiskUsed/n)
			rest := slices.DeleteFunc(slices.Clone(p.Executors), func(id string) bool { return id == ex.ID })
			lr.setPartition(p, rest, addDelta(p.MemoryUsed, -p.MemoryUsed/n), addDelta(p.DiskUsed, -p.DiskUsed/n))
		}
	}
}
