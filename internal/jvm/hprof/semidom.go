package hprof

import "context"

// semiNCA computes the immediate dominators of the count preorder numbers
// (1: the super-root) from the predecessor lists (CSR: predOffsets,
// predLists) and the depth-first tree's parents: semidominators by path
// compression in decreasing preorder, then each immediate dominator as the
// nearest common ancestor of its tree parent and its semidominator. Both
// sweeps read their inputs in order, so these stream from their files
// (backward, then forward): in memory are only semi, label and ancestor
// (reused as idom), 12 bytes a node.
func semiNCA(ctx context.Context, count int, predOffsets, predLists, parents *u32File) ([]uint32, error) {
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
	offsets, lists, parent := predOffsets.backward(), predLists.backward(), parents.backward()
	end, err := offsets.one() // predOffsets[count+1]
	if err != nil {
		return nil, err
	}
	for w := uint32(count); w >= 2; w-- {
		if w%(1<<20) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		start, err := offsets.one()
		if err != nil {
			return nil, err
		}
		for k := int(end - start); k > 0; {
			vs, err := lists.prev(k)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				if s := semi[eval(v)]; s < semi[w] {
					semi[w] = s
				}
			}
			k -= len(vs)
		}
		end = start
		p, err := parent.one() // parents[w]
		if err != nil {
			return nil, err
		}
		ancestor[w] = p
	}
	label = nil
	idom := ancestor // reused: the forest is no longer needed
	idom[1] = 1
	fwd := parents.reader()
	for skip := 2; skip > 0; { // parents[0] and [1]
		vs, err := fwd.next(skip)
		if err != nil {
			return nil, err
		}
		skip -= len(vs)
	}
	for w := uint32(2); w <= uint32(count); {
		ps, err := fwd.next(count + 1 - int(w))
		if err != nil {
			return nil, err
		}
		for _, d := range ps {
			for d > semi[w] {
				d = idom[d]
			}
			idom[w] = d
			w++
		}
	}
	return idom, nil
}
