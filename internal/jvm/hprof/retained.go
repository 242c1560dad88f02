package hprof

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

// Retained says who holds the heap: the dominator tree of the objects
// reachable from the GC roots. An object's retained size is what a
// collection would free if it became unreachable: its own size plus that
// of every object only reachable through it.
type Retained struct {
	Objects     int64 `json:"objects"`     // objects in the dump, class objects included
	References  int64 `json:"references"`  // non-null references that resolved to an object
	MissingRefs int64 `json:"missingRefs"` // references to ids no object of the dump has (dropped)
	Roots       int   `json:"roots"`       // distinct objects named by GC root records
	Reachable   int64 `json:"reachable"`   // objects reachable from the roots
	// Unreachable objects are garbage a dump taken without a full GC
	// (GC.heap_dump -all) still holds; they retain nothing.
	Unreachable      int64 `json:"unreachable"`
	UnreachableBytes int64 `json:"unreachableBytes"`
	ReachableBytes   int64 `json:"reachableBytes"`

	// Dominators are the top of the dominator tree: objects no other single
	// object holds (held by GC roots, or by several objects at once),
	// largest retained first.
	Dominators []Retainer `json:"dominators"`
	// ByClass groups every top-level dominator by its class, largest
	// retained first.
	ByClass []RetainedClass `json:"byClass"`
	// Owners groups retained memory by what it means to Spark: the highest
	// object of each dominator chain whose class belongs to an owner.
	Owners []Owner `json:"owners"`
	// Largest are the largest objects by their own size, each with the
	// top-level dominator that holds it; the same class under the same
	// holder is folded into one line.
	Largest []LargeObject `json:"largest"`
}

// Retainer is one object with what it retains and how it is reached.
type Retainer struct {
	ID       uint64 `json:"id"`
	Class    string `json:"class"`
	Length   int64  `json:"length"` // array length; -1 otherwise
	Shallow  int64  `json:"shallow"`
	Retained int64  `json:"retained"`
	// Path leads from a GC root to the object, shortest first, never
	// through a weak, soft, phantom or final reference's referent.
	// Empty when the object is only reachable through such references.
	Path []PathStep `json:"path"`
	Root string     `json:"root,omitempty"` // kind of the GC root the path starts at
	// Children are the largest objects this one dominates directly (the
	// next level of the dominator tree), a few levels deep for the top
	// dominators.
	Children []Retainer `json:"children,omitempty"`

	node uint32
}

// PathStep is one object on a path to a GC root and the reference it
// holds the next step by: a field name, "[i]" for an array element,
// "static NAME", "<class>", "<super>" or "<classloader>".
type PathStep struct {
	ID    uint64 `json:"id"`
	Class string `json:"class"`
	Field string `json:"field,omitempty"`
}

// RetainedClass is the top-level dominators of one class.
type RetainedClass struct {
	Class    string `json:"class"`
	Objects  int64  `json:"objects"`
	Shallow  int64  `json:"shallow"`
	Retained int64  `json:"retained"`
}

// LargeObject is one or more objects of a class held by the same top-level
// dominator.
type LargeObject struct {
	Class  string   `json:"class"`
	Count  int      `json:"count"`
	Bytes  int64    `json:"bytes"` // shallow, all of them
	IDs    []uint64 `json:"ids"`   // the first few
	Holder Retainer `json:"holder"`
}

// RetainedOptions tune the dominator analysis.
type RetainedOptions struct {
	Options
	Top int // dominators, classes and largest objects to report; 0: 20

	keepEdges    bool // tests: keep the references after the dominator tree is built
	separateRefs bool // tests: read the references in a pass of their own, as when pass 1 cannot
}

// Opener opens the dump again for each pass; the analysis reads it twice
// (three times when pass 1 cannot read the references) rather than keep it.
type Opener func() (io.ReadCloser, error)

// ReadRetained computes the histogram and the dominator tree of a dump.
// Memory grows with the object count, not the dump size: flat arrays of
// about 56 bytes per object and 8 per reference at the peak (the
// predecessor lists being built from the references); measured, about 80
// bytes per object of peak RSS (BenchmarkHeapSideBySide).
func ReadRetained(ctx context.Context, open Opener, opts RetainedOptions) (*Histogram, *Retained, error) {
	a, err := analyze(ctx, open, opts)
	if err != nil {
		return nil, nil, err
	}
	return a.h, a.r, nil
}

// analysis is everything the passes build, kept for tests.
type analysis struct {
	h      *Histogram
	g      *graph
	t      *domTree
	parent []uint32 // shortest strong paths (see shortestPaths)
	r      *Retained
}

func analyze(ctx context.Context, open Opener, opts RetainedOptions) (*analysis, error) {
	if opts.Top <= 0 {
		opts.Top = defaultTop
	}
	base := opts.Options
	if base.Top <= 0 {
		base.Top = max(opts.Top, defaultTop)
	}
	a := &analysis{g: newGraph(base.SizeHint, !opts.separateRefs)}
	g := a.g
	h, s1, err := pass(ctx, open, base, g, false)
	if err != nil {
		return nil, err
	}
	if h.Truncated {
		return nil, fmt.Errorf("offset %d: dump ends inside a record; the dominator tree needs every object", h.TruncatedAt)
	}
	a.h = h
	g.meta = s1
	if !g.resolve() {
		g.startPass2()
		if _, _, err := pass(ctx, open, base, g, true); err != nil {
			return nil, err
		}
		g.endPass2()
	}
	// The arrays hold no pointers, so a collection between phases is cheap;
	// it lets each phase reuse what the last one dropped instead of growing
	// the heap to twice what is live.
	runtime.GC()
	a.parent = shortestPaths(g)
	if a.t, err = dominators(ctx, g, !opts.keepEdges); err != nil {
		return nil, err
	}
	runtime.GC()
	var want map[uint32][]uint32
	a.r, want = report(g, a.t, a.parent, h, opts.Top)
	g.startPass3(want)
	if _, _, err := pass(ctx, open, base, g, true); err != nil {
		return nil, err
	}
	a.r.nameSteps(g)
	return a, nil
}

// pass reads the dump once with the graph attached: pass 1 (numbering the
// objects beside the histogram, and reading their references when the
// graph is fused) or, with refs, a pass over the references alone.
func pass(ctx context.Context, open Opener, opts Options, g *graph, refs bool) (*Histogram, *scanner, error) {
	rc, err := open()
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	if refs { // no histogram extras
		opts.MaxStrings = -1
	}
	s := newScanner(ctx, rc, opts)
	s.g = g
	if refs {
		s.refs = true
		s.top.max = 0
	} else {
		s.nodes, s.refs = true, g.fused
		s.frames = newFrames()
		g.meta = s // the references need the classes read so far
	}
	h, err := s.read()
	return h, s, err
}

// ReadFileRetained is ReadRetained over a file, gzip-compressed or not.
func ReadFileRetained(ctx context.Context, path string, opts RetainedOptions) (*Histogram, *Retained, error) {
	if fi, err := os.Stat(path); err == nil && opts.SizeHint == 0 {
		opts.SizeHint = fi.Size()
	}
	gzipped := false
	open := func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("hprof: %w", err)
		}
		r, gz, err := maybeGzip(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("hprof: %s: %w", filepath.Base(path), err)
		}
		gzipped = gz
		return readCloser{r, f}, nil
	}
	rc, err := open()
	if err != nil {
		return nil, nil, err
	}
	rc.Close()
	if gzipped {
		opts.SizeHint *= 6 // jcmd -gz dumps shrink about that much
	}
	h, r, err := ReadRetained(ctx, open, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("hprof: %s %w", filepath.Base(path), err)
	}
	return h, r, nil
}

type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// report picks what Retained shows and the path steps pass 3 must name.
func report(g *graph, t *domTree, parent []uint32, h *Histogram, top int) (*Retained, map[uint32][]uint32) {
	r := &Retained{
		Objects:    int64(g.nodes() - 1),
		References: g.refs,
		Roots:      len(g.roots),
		Reachable:  int64(len(t.vert) - 2), // less the super-root
	}
	r.MissingRefs = g.missing
	r.Unreachable = r.Objects - r.Reachable
	for v := 1; v < g.nodes(); v++ {
		if t.pre[v] == 0 {
			r.UnreachableBytes += g.shallow(uint32(v))
		}
	}
	r.ReachableBytes = t.ret[1]
	want := map[uint32][]uint32{}
	retainer := func(v uint32) Retainer {
		x := g.describe(v)
		x.Retained = t.ret[t.pre[v]]
		x.Path, x.Root = g.path(parent, v, want)
		return x
	}

	// Top-level dominators: the super-root's children.
	var tops []uint32
	byClass := map[uint32]*RetainedClass{}
	for p := 2; p < len(t.vert); p++ {
		if t.idom[p] != 1 {
			continue
		}
		v := t.vert[p]
		tops = append(tops, v)
		rc := byClass[g.cls[v]]
		if rc == nil {
			rc = &RetainedClass{Class: g.className(v)}
			if g.classes[g.cls[v]].kind == kindMirror {
				rc.Class = "java.lang.Class" // class objects share one entry
			}
			byClass[g.cls[v]] = rc
		}
		rc.Objects++
		rc.Shallow += g.shallow(v)
		rc.Retained += t.ret[p]
	}
	slices.SortFunc(tops, func(a, b uint32) int {
		if c := cmp.Compare(t.ret[t.pre[b]], t.ret[t.pre[a]]); c != 0 {
			return c
		}
		return cmp.Compare(g.addr[a], g.addr[b])
	})
	first, kids := childIndex(t)
	for _, v := range tops[:min(top, len(tops))] {
		x := retainer(v)
		x.Children = subtree(g, t, first, kids, t.pre[v], treeDepth)
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
	r.Owners = owners(g, t)
	r.Largest = largest(g, t, h, top, retainer)
	return r, want
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

// childIndex lists each preorder number's dominator-tree children as a
// CSR over preorder numbers.
func childIndex(t *domTree) (first, kids []uint32) {
	count := len(t.vert) - 1
	first = make([]uint32, count+2)
	for p := 2; p <= count; p++ {
		first[t.idom[p]+1]++
	}
	for i := 1; i < len(first); i++ {
		first[i] += first[i-1]
	}
	kids = make([]uint32, count)
	fill := make([]uint32, count+1)
	copy(fill, first[:count+1])
	for p := 2; p <= count; p++ {
		d := t.idom[p]
		kids[fill[d]] = uint32(p)
		fill[d]++
	}
	return first, kids
}

// subtree describes the largest children of preorder number p, depth
// levels down.
func subtree(g *graph, t *domTree, first, kids []uint32, p uint32, depth int) []Retainer {
	if depth == 0 {
		return nil
	}
	ch := append([]uint32(nil), kids[first[p]:first[p+1]]...)
	slices.SortFunc(ch, func(a, b uint32) int {
		if c := cmp.Compare(t.ret[b], t.ret[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var out []Retainer
	for _, c := range ch[:min(treeChildren, len(ch))] {
		x := g.describe(t.vert[c])
		x.Retained = t.ret[c]
		x.Children = subtree(g, t, first, kids, c, depth-1)
		out = append(out, x)
	}
	return out
}
