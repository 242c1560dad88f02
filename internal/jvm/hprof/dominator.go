package hprof

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// domTree is the dominator tree of the nodes reachable from the super-root,
// numbered in depth-first preorder: pre 1 is the super-root, and a node's
// immediate dominator always has a smaller number than the node, so one
// backward sweep sums retained sizes and one forward sweep passes anything
// down the tree.
type domTree struct {
	pre  []uint32 // node -> preorder number, 0 when unreachable
	vert []uint32 // preorder number -> node
	idom []uint32 // preorder number -> preorder number of the immediate dominator
	ret  []int64  // preorder number -> retained bytes
	// clsPre and sizePre hold, by preorder number, the class index and
	// shallow size in 8-byte words (eachPre).
	clsPre, sizePre *u32File
	// shallow is the bytes of every node, reachable or not.
	shallow int64
}

// dominators computes the tree with the semi-NCA algorithm (Georgiadis and
// Tarjan's simplification of Lengauer-Tarjan: semidominators by path
// compression, then each immediate dominator as the nearest common
// ancestor of its tree parent and its semidominator). Everything is
// iterative: a linked list of a million objects is a million deep.
//
// Memory: the depth-first search writes the tree parents to a file as it
// numbers the nodes; the successor lists and their offsets are in files
// once it is done (resolve's, or spilled when pass 2 read them), and the
// predecessor lists are built by streaming them back, so the two are never
// in memory together; the semidominators stream the predecessor lists and
// tree parents back from files (semidom.go), the preorder numbers wait in
// one, and the retained sizes stream the shallow sizes and classes from
// theirs (sizes, classes), writing both again in preorder for the report.
// With keepEdges (tests) the graph keeps its references. mark is told as
// each phase ends.
func dominators(ctx context.Context, g *graph, tmp *tempFiles, sizes, classes *u32File, keepEdges bool, mark func(string), afterDFS func() error) (*domTree, error) {
	t := &domTree{}
	pw, err := newArrayWriter[uint32](tmp, "tree parents")
	if err != nil {
		return nil, err
	}
	vw, err := newArrayWriter[uint32](tmp, "nodes in preorder")
	if err != nil {
		return nil, err
	}
	// The predecessors read the offsets (and, after a reference pass, the
	// references) from files: they are written on the second core while
	// dfs reads them.
	var edgesSpill *spilling[uint32]
	if g.toFile == nil {
		if edgesSpill, err = spillAsync(tmp, "references", g.to); err != nil {
			return nil, err
		}
	}
	firstSpill, err := spillAsync(tmp, "reference offsets", g.first)
	if err != nil {
		if edgesSpill != nil {
			_, _ = edgesSpill.wait()
		}
		return nil, err
	}
	count := dfs(g, pw, vw)
	first, firstErr := firstSpill.wait()
	edges, edgesErr := g.toFile, error(nil) // resolve's, when pass 1 read the references
	if edgesSpill != nil {
		edges, edgesErr = edgesSpill.wait()
	}
	parents, err := pw.finish()
	verts, vertsErr := vw.finish()
	if err := errors.Join(firstErr, edgesErr, err, vertsErr); err != nil {
		return nil, err
	}
	mark("dfs")
	if err := afterDFS(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !keepEdges {
		g.first, g.to = nil, nil
	}
	release(g.nodes())
	// The preorder numbers by node, from the nodes by preorder number,
	// once the references are gone.
	if t.pre, err = preorder(verts, g.nodes()); err != nil {
		return nil, err
	}
	tmp.drop(verts.f)
	predFirst, preds, err := predecessors(g.roots, first, edges, t.pre, count)
	if err != nil {
		return nil, err
	}
	tmp.drop(first.f)
	tmp.drop(edges.f)
	// Three arrays to write: two on other goroutines.
	preSpill, err := spillAsync(tmp, "preorder numbers", t.pre)
	if err != nil {
		return nil, err
	}
	offSpill, err := spillAsync(tmp, "predecessor offsets", predFirst)
	if err != nil {
		_, _ = preSpill.wait()
		return nil, err
	}
	predLists, listsErr := tmp.spillU32("predecessors", preds)
	pres, preErr := preSpill.wait()
	predOffsets, offErr := offSpill.wait()
	if err := errors.Join(listsErr, preErr, offErr); err != nil {
		return nil, err
	}
	t.pre, predFirst, preds = nil, nil, nil
	release(g.nodes())
	mark("predecessors")

	idom, err := semiNCA(ctx, count, predOffsets, predLists, parents)
	if err != nil {
		return nil, err
	}
	tmp.drop(predOffsets.f)
	tmp.drop(predLists.f)
	tmp.drop(parents.f)
	t.idom = idom
	release(g.nodes())
	mark("semidominators and idom")
	if err := t.retained(g.nodes(), tmp, pres, sizes, classes); err != nil {
		return nil, err
	}
	release(g.nodes()) // the preorder arrays retained wrote
	// The report reads the preorder numbers of a few nodes only: mapped,
	// only the pages it touches are resident.
	if t.pre, err = pres.view(); err != nil {
		return nil, err
	}
	mark("retained")
	return t, nil
}

// retained fills vert and ret (the tree's idom set) from the preorder
// numbers, shallow sizes and classes of the n nodes, read from their files
// side by side: none is needed whole in memory. It also writes the classes
// and shallow sizes in preorder (byPre) for the report, which reads them
// for every reachable node in that order: through the node-ordered views it
// would page in both whole.
func (t *domTree) retained(n int, tmp *tempFiles, pres, sizes, classes *u32File) error {
	count := len(t.idom) - 1
	t.vert = make([]uint32, count+1)
	t.ret = make([]int64, count+1)
	byPre := make([]uint32, count+1)
	pr, sr, cr := pres.reader(), sizes.reader(), classes.reader()
	ps, ss, cs := make([]uint32, spillBuf/4), make([]uint32, spillBuf/4), make([]uint32, spillBuf/4)
	for v := 0; v < n; {
		k := min(len(ps), n-v)
		for _, c := range []struct {
			r   *arrayReader[uint32]
			dst []uint32
		}{{pr, ps[:k]}, {sr, ss[:k]}, {cr, cs[:k]}} {
			if err := c.r.fill(c.dst); err != nil {
				return err
			}
		}
		for i, sz := range ss[:k] {
			t.shallow += int64(sz) * objectAlignment
			if p := ps[i]; p != 0 {
				t.vert[p] = uint32(v + i)
				t.ret[p] = int64(sz) * objectAlignment
				byPre[p] = cs[i]
			}
		}
		v += k
	}
	var err error
	if t.clsPre, err = tmp.spillU32("classes in preorder", byPre); err != nil {
		return err
	}
	for p, r := range t.ret {
		byPre[p] = uint32(r / objectAlignment)
	}
	if t.sizePre, err = tmp.spillU32("shallow sizes in preorder", byPre); err != nil {
		return err
	}
	for w := count; w >= 2; w-- {
		t.ret[t.idom[w]] += t.ret[w]
	}
	return nil
}

// eachPre calls fn with the class index and shallow size (8-byte words) of
// preorder numbers 2 to the last, in order, streamed from their files.
func (t *domTree) eachPre(fn func(p, cls, size uint32)) error {
	count := len(t.idom) - 1
	cr, sr := t.clsPre.reader(), t.sizePre.reader()
	cs, ss := make([]uint32, spillBuf/4), make([]uint32, spillBuf/4)
	for p := 0; p <= count; {
		k := min(len(cs), count+1-p)
		if err := cr.fill(cs[:k]); err != nil {
			return err
		}
		if err := sr.fill(ss[:k]); err != nil {
			return err
		}
		for i := range k {
			if q := p + i; q >= 2 {
				fn(uint32(q), cs[i], ss[i])
			}
		}
		p += k
	}
	return nil
}

// release hands the memory of the arrays just dropped back to the system
// before the next phase allocates its own: a phase's arrays have other
// sizes than the last one's, and without this the heap would hold both.
// A graph of fewer than releaseNodes nodes keeps it: its arrays are a
// few megabytes, less than what a collection of the whole heap costs.
func release(nodes int) {
	if nodes >= releaseNodes {
		debug.FreeOSMemory()
	}
}

const releaseNodes = 1 << 18

// dfs numbers the nodes reachable from node 0 in depth-first preorder
// (from 1): it writes each number's node to verts and its tree parent to
// parent (both from number 0, unused), and returns the count. It keeps in
// memory only a bit per node, for those it numbered, so that the shortest
// paths can run beside it (preorder turns verts into the numbers by node).
func dfs(g *graph, parent, verts *arrayWriter[uint32]) (count int) {
	type frame struct{ v, next, pre uint32 }
	seen := make([]uint64, (g.nodes()+63)/64)
	stack := []frame{{0, 0, 1}}
	seen[0] |= 1
	parent.put(0)
	parent.put(0)
	verts.put(0)
	verts.put(0)
	count = 1
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		succ := g.succ(f.v)
		if int(f.next) >= len(succ) {
			stack = stack[:len(stack)-1]
			continue
		}
		w := succ[f.next]
		f.next++
		if seen[w/64]&(1<<(w%64)) != 0 {
			continue
		}
		seen[w/64] |= 1 << (w % 64)
		count++
		parent.put(f.pre)
		verts.put(w)
		stack = append(stack, frame{w, 0, uint32(count)})
	}
	return count
}

// preorder reads the nodes by preorder number (dfs's verts) and returns
// the preorder number of each of the n nodes, 0 for the unreachable.
func preorder(verts *u32File, n int) ([]uint32, error) {
	pre := make([]uint32, n)
	r := verts.reader()
	for p := 0; p < verts.n; {
		vs, err := r.next(verts.n - p)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			if p+i >= 1 {
				pre[v] = uint32(p + i)
			}
		}
		p += len(vs)
	}
	return pre, nil
}

// predecessors lists each reachable node's predecessors, in preorder
// numbers, as a CSR over the preorder numbers. It reads the successor
// lists (node v's are edges first[v] to first[v+1]) twice from their
// files, in node order, each time a half of the nodes on each of two
// goroutines: the counts and fill cursors are added to atomically, so a
// list's order is the order its entries were filled in, which does not
// change the semidominators (each is a minimum over the list).
func predecessors(roots []uint32, first, edges *u32File, pre []uint32, count int) (predFirst, preds []uint32, err error) {
	predFirst = make([]uint32, count+2)
	for _, w := range roots { // the super-root's successors, pre 1
		predFirst[pre[w]+1]++
	}
	err = eachSuccSplit(first, edges, func(v uint32, succ []uint32) {
		if pre[v] == 0 {
			return
		}
		for _, w := range succ {
			atomic.AddUint32(&predFirst[pre[w]+1], 1)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	for i := 1; i < len(predFirst); i++ {
		predFirst[i] += predFirst[i-1]
	}
	// predFirst[q] is q's first slot; as a fill cursor it ends at q+1's.
	preds = make([]uint32, predFirst[count+1])
	for _, w := range roots {
		q := pre[w]
		preds[predFirst[q]] = 1
		predFirst[q]++
	}
	err = eachSuccSplit(first, edges, func(v uint32, succ []uint32) {
		p := pre[v]
		if p == 0 {
			return
		}
		for _, w := range succ {
			preds[atomic.AddUint32(&predFirst[pre[w]], 1)-1] = p
		}
	})
	if err != nil {
		return nil, nil, err
	}
	copy(predFirst[1:], predFirst[:count+1])
	predFirst[0] = 0
	return predFirst, preds, nil
}

// eachSuccSplit is eachSucc over the first half of the nodes on one
// goroutine and the second half on another: fn must be safe for that.
func eachSuccSplit(first, edges *u32File, fn func(v uint32, succ []uint32)) error {
	nodes := first.n - 1
	mid := nodes / 2
	var hiErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		hiErr = eachSucc(first, edges, mid, nodes, fn)
	}()
	loErr := eachSucc(first, edges, 0, mid, fn)
	wg.Wait()
	return errors.Join(loErr, hiErr)
}

// eachSucc streams the successor lists of nodes from to to (not
// included) and their offsets from their files, calling fn with each
// node's list, or pieces of it, in node order.
func eachSucc(first, edges *u32File, from, to int, fn func(v uint32, succ []uint32)) error {
	if edges.n == 0 || from >= to {
		return nil
	}
	prev, err := first.at(from)
	if err != nil {
		return err
	}
	last, err := first.at(to)
	if err != nil {
		return err
	}
	fr, r := first.readerFrom(from+1, to+1), edges.readerFrom(int(prev), int(last))
	for v := from; v < to; {
		his, err := fr.next(to - v)
		if err != nil {
			return err
		}
		for _, hi := range his {
			for k := int(hi - prev); k > 0; {
				succ, err := r.next(k)
				if err != nil {
					return err
				}
				fn(uint32(v), succ)
				k -= len(succ)
			}
			prev = hi
			v++
		}
	}
	return nil
}
