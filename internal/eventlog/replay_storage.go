package eventlog

import (
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// liveRDD is a tracked RDD with its partition index.
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

func (st *state) rddFor(info RDDInfo) *liveRDD {
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

// blockUpdated follows AppStatusListener.updateRDDBlock for "rdd_<id>_<split>"
// blocks; other block kinds only change executor memory.
func (st *state) blockUpdated(e EventBlockUpdated) {
	ex := st.liveExecs[e.ExecutorID]
	memDelta, diskDelta := e.MemSize, e.DiskSize
	var rddID int
	isRDD := false
	if rest, ok := strings.CutPrefix(e.BlockID, "rdd_"); ok {
		if i := strings.IndexByte(rest, '_'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				rddID, isRDD = n, true
			}
		}
	}
	storageValid := (e.UseMemory || e.UseDisk) && e.Replication > 0
	if isRDD {
		if lr := st.rdds[rddID]; lr != nil {
			p := lr.parts[e.BlockID]
			var oldMem, oldDisk int64
			if p != nil {
				oldMem, oldDisk = p.MemoryUsed, p.DiskUsed
			}
			memDelta, diskDelta = e.MemSize-oldMem, e.DiskSize-oldDisk
			if storageValid {
				if p == nil {
					p = &model.RDDPartition{BlockName: e.BlockID}
					lr.parts[e.BlockID] = p
					lr.r.Partitions = append(lr.r.Partitions, p)
				}
				p.MemoryUsed, p.DiskUsed = e.MemSize, e.DiskSize
				found := false
				for _, id := range p.Executors {
					found = found || id == e.ExecutorID
				}
				if !found {
					p.Executors = append(p.Executors, e.ExecutorID)
				}
				p.StorageLevel = storageLevel(e.DiskSize > 0, e.MemSize > 0, lr.r.UseOffHeap,
					e.MemSize > 0 && lr.r.Deserialized, len(p.Executors))
			} else if p != nil {
				delete(lr.parts, e.BlockID)
				for i, q := range lr.r.Partitions {
					if q == p {
						lr.r.Partitions = append(lr.r.Partitions[:i], lr.r.Partitions[i+1:]...)
						break
					}
				}
			}
			lr.r.MemoryUsed = max(0, lr.r.MemoryUsed+memDelta)
			lr.r.DiskUsed = max(0, lr.r.DiskUsed+diskDelta)
			if ex != nil {
				d := lr.dists[e.ExecutorID]
				if d == nil {
					d = &model.RDDDistribution{ExecutorID: e.ExecutorID}
					lr.dists[e.ExecutorID] = d
					lr.r.Distributions = append(lr.r.Distributions, d)
				}
				d.MemoryUsed = max(0, d.MemoryUsed+memDelta)
				d.DiskUsed = max(0, d.DiskUsed+diskDelta)
				if lr.r.UseOffHeap {
					d.OffHeapUsed = max(0, d.OffHeapUsed+memDelta)
				} else {
					d.OnHeapUsed = max(0, d.OnHeapUsed+memDelta)
				}
			}
		}
		if ex != nil {
			switch {
			case storageValid && memDelta+diskDelta != 0 && e.MemSize+e.DiskSize > 0 && memDelta == e.MemSize && diskDelta == e.DiskSize:
				ex.RDDBlocks++
			case !storageValid:
				ex.RDDBlocks = max(0, ex.RDDBlocks-1)
			}
		}
	}
	if ex != nil {
		ex.MemoryUsed = max(0, ex.MemoryUsed+memDelta)
		ex.DiskUsed = max(0, ex.DiskUsed+diskDelta)
		if ex.HasMemoryInfo() {
			if e.UseOffHeap {
				ex.UsedOffHeap = max(0, ex.UsedOffHeap+memDelta)
			} else {
				ex.UsedOnHeap = max(0, ex.UsedOnHeap+memDelta)
			}
		}
	}
}

func (st *state) executorRemovedFromRDDs(ex *model.Executor) {
	for _, lr := range st.rdds {
		if d := lr.dists[ex.ID]; d != nil {
			delete(lr.dists, ex.ID)
			for i, q := range lr.r.Distributions {
				if q == d {
					lr.r.Distributions = append(lr.r.Distributions[:i], lr.r.Distributions[i+1:]...)
					break
				}
			}
		}
	}
}
