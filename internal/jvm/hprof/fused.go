package hprof

import (
	"errors"
	"slices"
	"sync"
)

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
	// The lookups are most of resolve and read only the index: two
	// goroutines resolve a half of the references each, into a file of
	// its own, and the second half's file is appended to the first's.
	mid := g.splitRefs()
	// Each half's bounds in the raw references are read before either
	// rewrites its offsets.
	lo := resolveHalf{from: 1, to: mid, rawFrom: g.first[1], rawTo: g.first[mid]}
	hi := resolveHalf{from: mid, to: n, rawFrom: g.first[mid], rawTo: g.first[n]}
	// Their files are made here: tempFiles is not for two goroutines.
	for _, h := range []*resolveHalf{&lo, &hi} {
		if h.w, err = newArrayWriter[uint32](g.tmp, "references"); err != nil {
			return false, err
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		hi.err = g.resolveRange(rawFile, &hi)
	}()
	lo.err = g.resolveRange(rawFile, &lo)
	wg.Wait()
	g.tmp.drop(g.raw.f)
	if err := errors.Join(lo.err, hi.err); err != nil {
		return false, err
	}
	for v := mid; v < n; v++ {
		g.first[v] += uint32(lo.out.n)
	}
	g.first[n] = uint32(lo.out.n + hi.out.n)
	g.missing += lo.missing + hi.missing
	if g.toFile, err = appendArray(lo.out, hi.out); err != nil {
		return false, err
	}
	g.tmp.drop(hi.out.f)
	g.refs = int64(g.toFile.n)
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

// resolveHalf is the nodes one goroutine of resolve resolves the
// references of, and what it made of them.
type resolveHalf struct {
	from, to       int                  // nodes
	rawFrom, rawTo uint32               // their raw references
	w              *arrayWriter[uint32] // resolveRange writes their references as node numbers
	out            *u32File             // and finishes it as this
	missing        int64
	err            error
}

// splitRefs returns the node that splits the raw references in two
// halves, the first ending at it.
func (g *graph) splitRefs() int {
	n := len(g.addr)
	half := g.first[n] / 2
	mid, _ := slices.BinarySearch(g.first[1:n], half)
	return max(mid+1, 1)
}

// resolveRange resolves the raw references of nodes h.from to h.to into a
// file of their node numbers (the ids are in memory now, the references
// once the ids are parked: loadRefs), and rewrites g.first[h.from:h.to] as
// offsets into that file. It reads g.first only in its own range, and the
// index, so that two ranges resolve side by side.
func (g *graph) resolveRange(rawFile *u64File, h *resolveHalf) error {
	to := h.w
	start, last := h.rawFrom, h.rawTo
	raw := rawFile.readerFrom(int(start), int(last))
	var ids []uint64
	var err error
	for v := h.from; v < h.to; v++ {
		end := last
		if v+1 < h.to {
			end = g.first[v+1]
		}
		g.first[v] = uint32(to.n)
		for k := end - start; k > 0; k -= uint32(len(ids)) {
			if ids, err = raw.next(int(k)); err != nil {
				return err
			}
			for _, id := range ids {
				if w := g.index.lookup(id); w != 0 {
					to.put(w)
				} else {
					h.missing++
				}
			}
		}
		start = end
	}
	h.out, err = to.finish()
	return err
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
