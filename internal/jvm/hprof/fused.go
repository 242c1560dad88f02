package hprof

// HotSpot writes every CLASS DUMP before the objects, so pass 1 can read
// the references as it numbers the objects: it keeps each reference as the
// raw id (8 bytes) and resolves them to node numbers once every object is
// numbered, saving the dump a second full read. A dump with an instance
// before its class (no HotSpot dump seen does this) falls back to the
// separate reference pass.

// fusedState is what pass 1 keeps for the references it cannot resolve yet.
type fusedState struct {
	raw         []uint64          // reference targets as ids; node v's are raw[first[v]:first[v+1]]
	weakRaw     map[uint32]uint64 // Reference node -> referent id
	rootsRaw    []rawRoot
	fusedFailed bool
}

type rawRoot struct {
	id       uint64
	tag      byte
	frame    [2]uint32 // Java frame roots: thread serial, frame number
	hasFrame bool
}

func (g *graph) startFused(n int64) {
	g.first = make([]uint32, 1, n)
	g.raw = make([]uint64, 0, 2*n)
	g.weakRaw = map[uint32]uint64{}
	g.refShapes = map[uint64]*refShape{}
}

// rawRoot records a root record in pass 1, resolved with the references.
func (g *graph) rawRoot(r rawRoot) { g.rootsRaw = append(g.rootsRaw, r) }

// resolve turns pass 1's raw references into node numbers (in place of
// the offsets), then the roots and the weak referents. It reports false
// when pass 1 could not read the references (see fusedFailed): the caller
// then runs the reference pass.
func (g *graph) resolve() bool {
	fused := g.fused && !g.fusedFailed
	g.fused, g.refShapes = false, nil
	if !fused {
		g.fusedState, g.first = fusedState{}, nil
		g.separatePass = true
		return false
	}
	g.buildIndex()
	n := len(g.addr)
	g.first = append(g.first, uint32(len(g.raw)))
	to := make([]uint32, 0, len(g.raw))
	for v := 1; v < n; v++ {
		start, end := g.first[v], g.first[v+1]
		g.first[v] = uint32(len(to))
		for _, id := range g.raw[start:end] {
			if w := g.index.lookup(id); w != 0 {
				to = append(to, w)
			} else {
				g.missing++
			}
		}
	}
	g.first[n] = uint32(len(to))
	g.to = to
	g.refs = int64(len(to))
	for _, r := range g.rootsRaw {
		if w := g.root(r.id, r.tag); w != 0 && r.hasFrame {
			g.rootFrame[w] = r.frame
		}
	}
	for v, id := range g.weakRaw {
		if w := g.index.lookup(id); w != 0 {
			g.weak[v] = w
		}
	}
	g.fusedState = fusedState{}
	return true
}
