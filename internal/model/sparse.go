package model

import "math/bits"

// sparseMetrics holds a task's 36 metrics as the non-zero ones only: most
// tasks have five to fifteen (a map task reads no shuffle, few spill, push
// shuffle is rare). vals[0] is a mask of the fields set (bit i: the i-th
// of TaskMetrics.fields), the rest their values in field order; nil when
// every metric is zero. One allocation of 8 bytes a non-zero metric
// replaces 288 bytes inline.
type sparseMetrics struct{ vals []int64 }

// packSparse returns m's non-zero metrics.
func packSparse(m *TaskMetrics) sparseMetrics {
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
	vals := make([]int64, 1, 1+bits.OnesCount64(mask))
	vals[0] = int64(mask)
	for _, p := range f {
		if *p != 0 {
			vals = append(vals, *p)
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
