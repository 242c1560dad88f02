package hprof

// HotSpot writes every CLASS DUMP before the objects, so pass 1 can read
// the references as it numbers the objects: it writes each reference as the
// raw id (8 bytes) to a temporary file and resolves them to node numbers
// once every object is numbered, saving the dump a second full read
// without holding 8 bytes per reference in memory. A dump with an instance
// before its class (no HotSpot dump seen does this) falls back to the
// separate reference pass.

// fusedState is what pass 1 keeps for the references it cannot resolve yet.
type fusedState struct {
	raw         *idWriter         // reference targets as ids; node v's are ids first[v] to first[v+1]
	tmp         *tempFiles        // raw's
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

func (g *graph) startFused(n int64, tmp *tempFiles) error {
	raw, err := tmp.idWriter("references")
	if err != nil {
		return err
	}
	g.fused = true
	g.tmp = tmp
	g.first = make([]uint32, 1, n)
	g.raw = raw
	g.weakRaw = map[uint32]uint64{}
	g.refShapes = map[uint64]*refShape{}
	return nil
}

// rawRoot records a root record in pass 1, resolved with the references.
func (g *graph) rawRoot(r rawRoot) { g.rootsRaw = append(g.rootsRaw, r) }

// resolve turns pass 1's raw references into node numbers (in place of
// the offsets; into g.toFile, for loadRefs), then the roots and the weak
// referents. It reports false
// when pass 1 could not read the references (see fusedFailed): the caller
// then runs the reference pass.
func (g *graph) resolve() (bool, error) {
	fused := g.fused && !g.fusedFailed
	g.fused, g.refShapes = false, nil
	if !fused {
		if g.raw != nil {
			g.tmp.drop(g.raw.f)
		}
		g.fusedState, g.first = fusedState{}, nil
		g.separatePass = true
		return false, nil
	}
	g.buildIndex()
	n := len(g.addr)
	g.first = append(g.first, uint32(g.raw.n))
	rawFile, err := g.raw.finish()
	if err != nil {
		return false, err
	}
	raw := rawFile.reader()
	// The node numbers go to a file too: the ids are in memory now, the
	// references once the ids are parked (loadRefs).
	to, err := newArrayWriter[uint32](g.tmp, "references")
	if err != nil {
		return false, err
	}
	var ids []uint64
	for v := 1; v < n; v++ {
		start, end := g.first[v], g.first[v+1]
		g.first[v] = uint32(to.n)
		for k := end - start; k > 0; k -= uint32(len(ids)) {
			if ids, err = raw.next(int(k)); err != nil {
				return false, err
			}
			for _, id := range ids {
				if w := g.index.lookup(id); w != 0 {
					to.put(w)
				} else {
					g.missing++
				}
			}
		}
	}
	g.first[n] = uint32(to.n)
	g.tmp.drop(g.raw.f)
	if g.toFile, err = to.finish(); err != nil {
		return false, err
	}
	g.refs = to.n
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
	return true, nil
}

// loadRefs reads back the references resolve wrote, once the ids are
// parked: resolve never holds the ids and the references together.
func (g *graph) loadRefs() error {
	if g.toFile == nil {
		return nil // read by pass 2, in memory
	}
	var err error
	g.to, err = g.toFile.load()
	return err
}
