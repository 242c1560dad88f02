package model

import "math/bits"

// sparseMetrics holds a task's 36 metrics as the non-zero ones only: most
// tasks have five to fifteen (a map task reads no shuffle, few spill, push
// shuffle is rare). vals[0] is a mask of the fields set (bit i: the i-th
// of TaskMetrics.fields), the rest their values in field order; nil when
// every metric is zero. One allocation of 8 bytes a non-zero metric
// replaces 288 bytes inline.
type sparseMetrics struct{ vals []int64 }

// MetricSlab hands out the sparse metric values of many tasks from shared
// blocks: a replay sets the metrics of every task, and one allocation a
// block instead of one a task keeps the replay's allocations per event
// where they were before the metrics went sparse. A block lives as long as
// one of its tasks. Not safe for concurrent use.
type MetricSlab struct{ free []int64 }

// slabBlock is the values a block holds (16 KiB: ~300 tasks of the big
// log).
const slabBlock = 2048

// take returns n zeroed values of a block, with no room to grow into the
// next task's.
func (a *MetricSlab) take(n int) []int64 {
	if a == nil {
		return make([]int64, n)
	}
	if cap(a.free)-len(a.free) < n {
		a.free = make([]int64, 0, max(slabBlock, n))
	}
	i := len(a.free)
	a.free = a.free[:i+n]
	return a.free[i : i+n : i+n]
}

// packSparse returns m's non-zero metrics, their values taken from slab
// (nil: allocated alone).
func packSparse(m *TaskMetrics, slab *MetricSlab) sparseMetrics {
	f := m.fields()
	var mask uint64
	for i, p := range f {
		if *p != 0 {
			mask |= 1 << i
		}
	}
	if mask == 0 {
		return sparseMetrics{}
	}
	vals := slab.take(1 + bits.OnesCount64(mask))
	vals[0] = int64(mask)
	j := 1
	for _, p := range f {
		if *p != 0 {
			vals[j] = *p
			j++
		}
	}
	return sparseMetrics{vals}
}

// expand writes the metrics into m, whose fields must be zero.
func (s sparseMetrics) expand(m *TaskMetrics) {
	if len(s.vals) == 0 {
		return
	}
	f := m.fields()
	mask := uint64(s.vals[0])
	for _, v := range s.vals[1:] {
		i := bits.TrailingZeros64(mask)
		*f[i] = v
		mask &= mask - 1
	}
}
