package hprof

import (
	"cmp"
	"slices"
)

// report picks what Retained shows and the path steps pass 3 must name.
func report(g *graph, t *domTree, parent []uint32, h *Histogram, top int) (*Retained, map[uint32][]uint32, error) {
	r := &Retained{
		Objects:    int64(g.nodes() - 1),
		References: g.refs,
		Roots:      len(g.roots),
		Reachable:  int64(len(t.vert) - 2), // less the super-root
	}
	r.MissingRefs = g.missing
	r.Unreachable = r.Objects - r.Reachable
	r.ReachableBytes = t.ret[1]
	r.UnreachableBytes = t.shallow - r.ReachableBytes
	want := map[uint32][]uint32{}
	retainer := func(v uint32) Retainer {
		x := g.describe(v)
		x.Retained = t.ret[t.pre[v]]
		x.Path, x.Root = g.path(parent, v, want)
		return x
	}

	// Top-level dominators: the super-root's children. Their classes and
	// sizes stream in preorder; the owners' tally shares the stream.
	sel := topK{g: g, t: t, k: top}
	byClass := map[uint32]*RetainedClass{}
	own := newOwnerTally(g, t)
	err := t.eachPre(func(p, cls, size uint32) {
		own.add(p, cls)
		if t.idom[p] != 1 {
			return
		}
		sel.offer(p)
		rc := byClass[cls]
		if rc == nil {
			rc = &RetainedClass{Class: g.className(t.vert[p])}
			if g.classes[cls].kind == kindMirror {
				rc.Class = "java.lang.Class" // class objects share one entry
			}
			byClass[cls] = rc
		}
		rc.Objects++
		rc.Shallow += int64(size) * objectAlignment
		rc.Retained += t.ret[p]
	})
	if err != nil {
		return nil, nil, err
	}
	chosen := largestChildren(t, sel.best)
	for _, p := range sel.best {
		x := retainer(t.vert[p])
		x.Children = subtree(g, t, chosen, p, treeDepth, want)
		r.Dominators = append(r.Dominators, x)
	}
	for _, rc := range byClass {
		r.ByClass = append(r.ByClass, *rc)
	}
	slices.SortFunc(r.ByClass, func(a, b RetainedClass) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	r.Owners = own.result()
	r.Largest = largest(g, t, h, top, retainer)
	return r, want, nil
}

// topK keeps the k top-level dominators (preorder numbers) retaining
// most, largest first (ties by id), as they are offered: there can be
// millions, and sorting them all was a fifth of the analysis.
type topK struct {
	g    *graph
	t    *domTree
	k    int
	best []uint32
}

// before reports whether preorder number a ranks before b.
func (s *topK) before(a, b uint32) bool {
	if ra, rb := s.t.ret[a], s.t.ret[b]; ra != rb {
		return ra > rb
	}
	return s.g.addr[s.t.vert[a]] < s.g.addr[s.t.vert[b]]
}

func (s *topK) offer(p uint32) {
	if s.k <= 0 || len(s.best) == s.k && !s.before(p, s.best[s.k-1]) {
		return
	}
	i := len(s.best)
	for i > 0 && s.before(p, s.best[i-1]) {
		i--
	}
	s.best = slices.Insert(s.best, i, p)
	if len(s.best) > s.k {
		s.best = s.best[:s.k]
	}
}

// describe is a node without retained size and path.
func (g *graph) describe(v uint32) Retainer {
	x := Retainer{ID: g.addr[v], Class: g.className(v), Length: -1, Shallow: g.shallow(v), node: v}
	if c := g.classes[g.cls[v]]; c.kind == kindObjArray || c.kind == kindPrimArray {
		g.lengths[v] = 0 // filled by pass 3
	}
	return x
}

// className names a node's class as the histogram does; class objects are
// "class NAME".
func (g *graph) className(v uint32) string {
	c := g.classes[g.cls[v]]
	switch c.kind {
	case kindPrimArray:
		return primArrayName(c.id)
	case kindMirror:
		return "class " + g.meta.className(g.addr[v])
	}
	return g.meta.className(c.id)
}

// largest folds the histogram's largest objects by class and top-level
// dominator, and describes each holder.
func largest(g *graph, t *domTree, h *Histogram, top int, retainer func(uint32) Retainer) []LargeObject {
	type key struct {
		class  string
		holder uint32
	}
	var out []LargeObject
	at := map[key]int{}
	for _, o := range h.Largest {
		v := g.index.lookup(o.ID)
		if v == 0 || t.pre[v] == 0 {
			continue // unreachable: nothing holds it
		}
		p := t.pre[v]
		for t.idom[p] != 1 {
			p = t.idom[p]
		}
		k := key{o.Class, t.vert[p]}
		i, ok := at[k]
		if !ok {
			if len(out) == top {
				continue
			}
			i = len(out)
			at[k] = i
			out = append(out, LargeObject{Class: o.Class, Holder: retainer(k.holder)})
		}
		lo := &out[i]
		lo.Count++
		lo.Bytes += o.Bytes
		if len(lo.IDs) < 5 {
			lo.IDs = append(lo.IDs, o.ID)
		}
	}
	slices.SortStableFunc(out, func(a, b LargeObject) int { return cmp.Compare(b.Bytes, a.Bytes) })
	return out
}

// The dominator tree shown under each top dominator: its largest children,
// a few levels deep.
const (
	treeDepth    = 3
	treeChildren = 5
)

// largestChildren picks the dominator-tree children shown under the
// preorder numbers tops: each one's largest (by retained size, then
// preorder), treeDepth levels down. One scan of the tree per level finds
// them; an index of every node's children would cost 12 bytes a node.
func largestChildren(t *domTree, tops []uint32) map[uint32][]uint32 {
	chosen := map[uint32][]uint32{}
	asked := make([]uint64, len(t.idom)/64+1) // bitset of the level's preorder numbers
	level := tops
	for depth := 0; depth < treeDepth && len(level) > 0; depth++ {
		// A node can have millions of children: each keeps its largest as
		// they are met, in increasing preorder (so ties keep the first).
		kids := make(map[uint32][]uint32, len(level))
		for _, p := range level {
			asked[p/64] |= 1 << (p % 64)
		}
		for q := uint32(2); q < uint32(len(t.idom)); q++ {
			d := t.idom[q]
			if asked[d/64]&(1<<(d%64)) == 0 {
				continue
			}
			best := kids[d]
			if len(best) == treeChildren && t.ret[q] <= t.ret[best[treeChildren-1]] {
				continue
			}
			i := len(best)
			for i > 0 && t.ret[q] > t.ret[best[i-1]] {
				i--
			}
			best = slices.Insert(best, i, q)
			kids[d] = best[:min(len(best), treeChildren)]
		}
		var next []uint32
		for _, p := range level {
			asked[p/64] &^= 1 << (p % 64)
			chosen[p] = kids[p]
			next = append(next, chosen[p]...)
		}
		level = next
	}
	return chosen
}

// subtree describes the children chosen under preorder number p, depth
// levels down, and asks pass 3 to name each reference from a node to a
// child (a child the node holds only through other objects stays
// unnamed).
func subtree(g *graph, t *domTree, chosen map[uint32][]uint32, p uint32, depth int, want map[uint32][]uint32) []Retainer {
	if depth == 0 {
		return nil
	}
	var out []Retainer
	for _, c := range chosen[p] {
		x := g.describe(t.vert[c])
		x.Retained = t.ret[c]
		want[t.vert[p]] = append(want[t.vert[p]], t.vert[c])
		x.Children = subtree(g, t, chosen, c, depth-1, want)
		out = append(out, x)
	}
	return out
}
