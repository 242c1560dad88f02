package hprof

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// testGraph builds a graph of n objects (nodes 1..n, 8 bytes each times
// their number) from an adjacency list and root list.
func testGraph(n int, adj map[uint32][]uint32, roots []uint32) *graph {
	g := &graph{classes: []graphClass{{kind: kindMirror}}, rootKind: map[uint32]byte{}, weak: map[uint32]uint32{}}
	g.addr = make([]uint64, n+1)
	g.cls = make([]uint32, n+1)
	g.size = make([]uint32, n+1)
	g.first = make([]uint32, n+2)
	for v := 1; v <= n; v++ {
		g.addr[v] = uint64(v) * 16
		g.size[v] = uint32(v)
		g.first[v] = uint32(len(g.to))
		g.to = append(g.to, adj[uint32(v)]...)
	}
	g.first[n+1] = uint32(len(g.to))
	g.roots = roots
	return g
}

// testDominators is the dominator tree of g, its references kept.
func testDominators(t *testing.T, g *graph) (*domTree, error) {
	tmp := &tempFiles{dir: t.TempDir(), inMemory: true}
	defer tmp.close()
	sizes, err := tmp.spillU32("sizes", g.size)
	if err != nil {
		return nil, err
	}
	classes, err := tmp.spillU32("classes", g.cls)
	if err != nil {
		return nil, err
	}
	return dominators(context.Background(), g, tmp, sizes, classes, true, func(string) {}, func() error { return nil })
}

// bruteRetained is, for each node, the bytes that become unreachable from
// the roots when the node is removed: its retained size by definition.
func bruteRetained(g *graph, v uint32) (int64, bool) {
	reach := func(skip uint32) []bool {
		seen := make([]bool, g.nodes())
		stack := []uint32{0}
		seen[0] = true
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, w := range g.succ(x) {
				if w != skip && !seen[w] {
					seen[w] = true
					stack = append(stack, w)
				}
			}
		}
		return seen
	}
	all := reach(noParent)
	if !all[v] {
		return 0, false
	}
	without := reach(v)
	var sum int64
	for x := 1; x < g.nodes(); x++ {
		if all[x] && !without[x] {
			sum += g.shallow(uint32(x))
		}
	}
	return sum, true
}

func TestDominatorsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n := 1 + rng.IntN(40)
		adj := map[uint32][]uint32{}
		edges := rng.IntN(3 * n)
		for range edges {
			a, b := uint32(1+rng.IntN(n)), uint32(1+rng.IntN(n))
			adj[a] = append(adj[a], b)
		}
		var roots []uint32
		for range 1 + rng.IntN(3) {
			roots = append(roots, uint32(1+rng.IntN(n)))
		}
		g := testGraph(n, adj, roots)
		tree, err := testDominators(t, g)
		if err != nil {
			t.Fatal(err)
		}
		for v := uint32(1); v <= uint32(n); v++ {
			want, reachable := bruteRetained(g, v)
			if got := tree.pre[v] != 0; got != reachable {
				t.Fatalf("graph %d (%v roots %v): node %d reachable %v, want %v", iter, adj, roots, v, got, reachable)
			}
			if !reachable {
				continue
			}
			if got := tree.ret[tree.pre[v]]; got != want {
				t.Fatalf("graph %d (%v roots %v): node %d retains %d bytes, want %d", iter, adj, roots, v, got, want)
			}
		}
	}
}

// TestDominatorsDeepChain: a list a million long must not overflow a stack.
func TestDominatorsDeepChain(t *testing.T) {
	const n = 1 << 20
	adj := map[uint32][]uint32{}
	for v := uint32(1); v < n; v++ {
		adj[v] = []uint32{v + 1}
	}
	g := testGraph(n, adj, []uint32{1})
	tree, err := testDominators(t, g)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tree.ret[tree.pre[1]], int64(8)*n*(n+1)/2; got != want {
		t.Fatalf("head retains %d, want %d", got, want)
	}
	if got := tree.idom[tree.pre[n]]; got != tree.pre[n-1] {
		t.Fatalf("tail's dominator is pre %d, want %d", got, tree.pre[n-1])
	}
}

// TestAddrIndex: ids in long and short ascending runs (class objects in no
// order, then the heap region by region), and in more long runs than the
// index keeps apart (the sorted-copy fallback), resolve to their nodes;
// other ids to 0. Dense long runs get a rank index, sparse ones buckets,
// and both are checked again after being parked and mapped back.
func TestAddrIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	allRanked, allBucketed := 0, 0
	for _, tt := range []struct {
		runs int
		gap  int // ids are up to 8*gap bytes apart
	}{{1, 6}, {2, 80}, {5, 6}, {5, 80}, {maxRuns + 5, 6}} {
		runs := tt.runs
		g := &graph{addr: []uint64{0}}
		want := map[uint64]uint32{}
		for range runs {
			base := uint64(rng.IntN(1<<30)) &^ 7
			n := 1 + rng.IntN(50) // a short run
			if rng.IntN(2) == 0 || runs > maxRuns {
				n = longRun + rng.IntN(500)
			}
			for range n {
				base += 8 * uint64(1+rng.IntN(tt.gap))
				if _, dup := want[base]; dup {
					continue
				}
				g.addr = append(g.addr, base)
				want[base] = uint32(len(g.addr) - 1)
			}
		}
		g.buildIndex()
		ranked, bucketed := 0, 0
		for _, r := range g.index.runs {
			switch {
			case r.ranked:
				ranked++
			case r.order == nil:
				bucketed++
			}
		}
		// 16 bytes per 512 of addresses: about 1 byte per id 28 bytes
		// apart on average (ranked), 10 per id 324 apart (buckets). Runs
		// that happen to follow each other are one, with a gap: sparse.
		if tt.gap < 10 && runs <= maxRuns && ranked == 0 && bucketed > 0 || tt.gap > 10 && ranked > 0 {
			t.Fatalf("%d runs %d bytes apart at most: %d ranked, %d with buckets", runs, 8*tt.gap, ranked, bucketed)
		}
		allRanked, allBucketed = allRanked+ranked, allBucketed+bucketed
		check := func(when string) {
			t.Helper()
			for id, v := range want {
				if got := g.index.lookup(id); got != v {
					t.Fatalf("%d runs, %s: id %#x resolves to node %d, want %d", runs, when, id, got, v)
				}
				if got := g.index.lookup(id + 4); got != 0 {
					t.Fatalf("%d runs, %s: id %#x (no object) resolves to node %d, want 0", runs, when, id+4, got)
				}
				if _, ok := want[id+8]; !ok {
					if got := g.index.lookup(id + 8); got != 0 {
						t.Fatalf("%d runs, %s: id %#x (no object) resolves to node %d, want 0", runs, when, id+8, got)
					}
				}
			}
		}
		check("built")
		tmp := &tempFiles{dir: t.TempDir()}
		g.cls, g.size = make([]uint32, len(g.addr)), make([]uint32, len(g.addr))
		p, err := g.parkAttrs(tmp)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.parkIDs(tmp, p); err != nil {
			t.Fatal(err)
		}
		if err := g.unpark(p); err != nil {
			t.Fatal(err)
		}
		check("parked and mapped back")
		defer tmp.close() // the views are the index's now
		if got := g.index.lookup(0); got != 0 {
			t.Fatalf("id 0 resolves to %d", got)
		}
	}
	if allRanked == 0 || allBucketed == 0 {
		t.Errorf("%d runs ranked, %d with buckets: both kinds must be tried", allRanked, allBucketed)
	}
}

// TestLargestTops: the selection of the top-level dominators shown ranks
// as a full sort by retained size, then id, would.
func TestLargestTops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 200 {
		n := 1 + rng.IntN(60)
		g := &graph{addr: make([]uint64, n+1)}
		tree := &domTree{vert: make([]uint32, n+2), ret: make([]int64, n+2)}
		var tops []uint32  // preorder numbers
		ids := rng.Perm(n) // distinct ids in no order
		for v := 1; v <= n; v++ {
			g.addr[v] = uint64(ids[v-1]) * 8
			tree.vert[v+1] = uint32(v)
			tree.ret[v+1] = int64(rng.IntN(5)) // many ties
			tops = append(tops, uint32(v+1))
		}
		k := rng.IntN(25)
		want := slices.Clone(tops)
		slices.SortFunc(want, func(a, b uint32) int {
			if c := cmp.Compare(tree.ret[b], tree.ret[a]); c != 0 {
				return c
			}
			return cmp.Compare(g.addr[tree.vert[a]], g.addr[tree.vert[b]])
		})
		want = want[:min(k, len(want))]
		sel := topK{g: g, t: tree, k: k}
		for _, p := range tops {
			sel.offer(p)
		}
		if got := sel.best; !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("graph %d, k %d: got %v, want %v", iter, k, got, want)
		}
	}
}

// TestLargestChildren: the children chosen under each shown node are its
// largest by retained size, ties by preorder, as a full sort would pick.
func TestLargestChildren(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := range 100 {
		n := 2 + rng.IntN(300)
		tree := &domTree{idom: make([]uint32, n+1), ret: make([]int64, n+1)}
		tree.idom[1] = 1
		for q := 2; q <= n; q++ {
			tree.idom[q] = uint32(1 + rng.IntN(min(q-1, 4))) // a few nodes with many children
			tree.ret[q] = int64(rng.IntN(6))
		}
		tops := []uint32{1}
		chosen := largestChildren(tree, tops)
		for p, got := range chosen {
			var all []uint32
			for q := 2; q <= n; q++ {
				if tree.idom[q] == p {
					all = append(all, uint32(q))
				}
			}
			slices.SortStableFunc(all, func(a, b uint32) int { return cmp.Compare(tree.ret[b], tree.ret[a]) })
			if want := all[:min(treeChildren, len(all))]; !slices.Equal(got, want) && len(want) > 0 {
				t.Fatalf("tree %d: children of %d: got %v, want %v", iter, p, got, want)
			}
		}
	}
}
