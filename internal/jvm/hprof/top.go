package hprof

import (
	"cmp"
	"slices"
)

const (
	kindInstance = iota
	kindObjArray
	kindPrimArray
)

// topObjects keeps the largest objects seen so far in a min-heap ordered by
// their data bytes in the dump; exact JVM sizes need the layout, known only
// at the end, so it keeps a few more than asked and re-ranks then.
type topObjects struct {
	max int
	h   []topEntry
}

type topEntry struct {
	raw    int64
	addr   uint64
	class  uint64 // class id, or the element type for primitive arrays
	length int64  // -1 for instances
	kind   byte
}

func (t *topObjects) offer(raw int64, addr, class uint64, length int64) {
	if t.max == 0 || (len(t.h) == t.max && raw <= t.h[0].raw) {
		return
	}
	kind := byte(kindInstance)
	if length >= 0 {
		kind = kindObjArray
		if primArrayName(class) != "" {
			kind = kindPrimArray
		}
	}
	e := topEntry{raw, addr, class, length, kind}
	if len(t.h) < t.max {
		t.h = append(t.h, e)
		t.up(len(t.h) - 1)
		return
	}
	t.h[0] = e
	t.down(0)
}

func (t *topObjects) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if t.h[p].raw <= t.h[i].raw {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topObjects) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(t.h) {
			return
		}
		m := l
		if r := l + 1; r < len(t.h) && t.h[r].raw < t.h[l].raw {
			m = r
		}
		if t.h[i].raw <= t.h[m].raw {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// Object is one of the largest objects in the dump.
type Object struct {
	ID     uint64 `json:"id"`
	Class  string `json:"class"`
	Length int64  `json:"length"` // array length; -1 for instances
	Bytes  int64  `json:"bytes"`
}

func sortObjects(objs []Object) {
	slices.SortFunc(objs, func(a, b Object) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
