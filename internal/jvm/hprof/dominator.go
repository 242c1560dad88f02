package hprof

import (
	"context"
	"runtime"
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
}

// dominators computes the tree with the semi-NCA algorithm (Georgiadis and
// Tarjan's simplification of Lengauer-Tarjan: semidominators by path
// compression, then each immediate dominator as the nearest common
// ancestor of its tree parent and its semidominator). Everything is
// iterative: a linked list of a million objects is a million deep.
//
// With dropEdges the graph's references are released once the
// predecessor lists are built from them: the rest needs only those. mark
// is told as each phase ends.
func dominators(ctx context.Context, g *graph, dropEdges bool, mark func(string)) (*domTree, error) {
	n := g.nodes()
	t := &domTree{pre: make([]uint32, n)}
	parent, count := dfs(g, t.pre)
	t.vert = make([]uint32, count+1)
	for v, p := range t.pre {
		if p != 0 {
			t.vert[p] = uint32(v)
		}
	}
	mark("dfs")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	predFirst, preds := predecessors(g, t)
	mark("predecessors")
	if dropEdges {
		g.first, g.to = nil, nil
		runtime.GC()
	}
	semi := make([]uint32, count+1)
	label := make([]uint32, count+1)
	ancestor := make([]uint32, count+1)
	for i := range semi {
		semi[i], label[i] = uint32(i), uint32(i)
	}
	var stack []uint32
	eval := func(v uint32) uint32 {
		if ancestor[v] == 0 {
			return v
		}
		// Compress the path from v to its forest root: climb, then update
		// labels top-down.
		stack = stack[:0]
		for x := v; ancestor[ancestor[x]] != 0; x = ancestor[x] {
			stack = append(stack, x)
		}
		for i := len(stack) - 1; i >= 0; i-- {
			x := stack[i]
			a := ancestor[x]
			if semi[label[a]] < semi[label[x]] {
				label[x] = label[a]
			}
			ancestor[x] = ancestor[a]
		}
		return label[v]
	}
	for w := uint32(count); w >= 2; w-- {
		if w%(1<<20) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, v := range preds[predFirst[w]:predFirst[w+1]] {
			if s := semi[eval(v)]; s < semi[w] {
				semi[w] = s
			}
		}
		ancestor[w] = parent[w]
	}
	mark("semidominators")
	idom := ancestor // reused: the forest is no longer needed
	idom[1] = 1
	for w := uint32(2); w <= uint32(count); w++ {
		d := parent[w]
		for d > semi[w] {
			d = idom[d]
		}
		idom[w] = d
	}
	t.idom = idom
	t.ret = make([]int64, count+1)
	for w := uint32(count); w >= 1; w-- {
		t.ret[w] += g.shallow(t.vert[w])
		if w > 1 {
			t.ret[idom[w]] += t.ret[w]
		}
	}
	mark("idom and retained")
	return t, nil
}

// dfs numbers the nodes reachable from node 0 in depth-first preorder
// (from 1) into pre and returns each number's tree parent and the count.
func dfs(g *graph, pre []uint32) (parent []uint32, count int) {
	parent = make([]uint32, 1, g.nodes()+1)
	type frame struct{ v, next uint32 }
	stack := []frame{{0, 0}}
	pre[0] = 1
	parent = append(parent, 0)
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
		if pre[w] != 0 {
			continue
		}
		count++
		pre[w] = uint32(count)
		parent = append(parent, pre[f.v])
		stack = append(stack, frame{w, 0})
	}
	return parent, count
}

// predecessors lists each reachable node's predecessors, in preorder
// numbers, as a CSR over the preorder numbers.
func predecessors(g *graph, t *domTree) (first, preds []uint32) {
	count := len(t.vert) - 1
	first = make([]uint32, count+2)
	for p := 1; p <= count; p++ {
		for _, w := range g.succ(t.vert[p]) {
			first[t.pre[w]+1]++
		}
	}
	for i := 1; i < len(first); i++ {
		first[i] += first[i-1]
	}
	preds = make([]uint32, first[count+1])
	fill := make([]uint32, count+1)
	copy(fill, first[:count+1])
	for p := 1; p <= count; p++ {
		for _, w := range g.succ(t.vert[p]) {
			q := t.pre[w]
			preds[fill[q]] = uint32(p)
			fill[q]++
		}
	}
	return first, preds
}
