package hprof

import (
	"cmp"
	"slices"
)

// Growth is one class's change from a baseline dump to the current one.
type Growth struct {
	Class          string `json:"class"`
	Instances      int64  `json:"instances"`
	Bytes          int64  `json:"bytes"`
	InstancesDelta int64  `json:"instancesDelta"`
	BytesDelta     int64  `json:"bytesDelta"`
}

// Diff returns per-class growth from base to cur, largest byte growth
// first; classes that did not change are left out.
func Diff(base, cur []ClassStat) []Growth {
	m := map[string]*Growth{}
	for _, c := range cur {
		m[c.Class] = &Growth{Class: c.Class, Instances: c.Instances, Bytes: c.Bytes, InstancesDelta: c.Instances, BytesDelta: c.Bytes}
	}
	for _, c := range base {
		g := m[c.Class]
		if g == nil {
			g = &Growth{Class: c.Class}
			m[c.Class] = g
		}
		g.InstancesDelta -= c.Instances
		g.BytesDelta -= c.Bytes
	}
	out := make([]Growth, 0, len(m))
	for _, g := range m {
		if g.InstancesDelta != 0 || g.BytesDelta != 0 {
			out = append(out, *g)
		}
	}
	slices.SortFunc(out, func(a, b Growth) int {
		if c := cmp.Compare(b.BytesDelta, a.BytesDelta); c != 0 {
			return c
		}
		if c := cmp.Compare(b.InstancesDelta, a.InstancesDelta); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	return out
}
