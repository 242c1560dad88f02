package hprof

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// The object graph is kept in flat arrays, never as objects: node i is the
// i-th object the dump holds (class objects, instances, object and primitive
// arrays, in dump order) and node 0 is a super-root whose successors are the
// GC roots. Per node that is 8 bytes of identifier, 4 of class, 4 of shallow
// size and 4 of edge offset; per reference 4 bytes. The first pass over the
// dump numbers the nodes (beside the histogram) and reads the references as
// raw ids, resolved once every node is numbered (fused.go); when it cannot
// (an instance before its class) a second pass reads them with every
// class's field list and every node's number at hand. The last pass names
// the references on the paths a report shows.

// graphClass is one entry of the graph's class table: a class object id, or
// a primitive array type, or the shared entry of all class objects.
type graphClass struct {
	id   uint64 // class id; the element type for primitive arrays
	kind byte   // kindInstance, kindObjArray (both with id), kindPrimArray, kindMirror
}

const kindMirror = 3 // a class object (java.lang.Class instance written as CLASS DUMP)

// graph is the dump's object graph; see the comment above.
type graph struct {
	addr  []uint64 // node -> object id
	cls   []uint32 // node -> index into classes
	size  []uint32 // node -> array length after pass 1, shallow size in 8-byte words after sizing
	first []uint32 // CSR: node v's references are to[first[v]:first[v+1]]
	to    []uint32
	// toFile holds to from resolve to loadRefs, and then for the
	// predecessors (fused.go).
	toFile *u32File

	classes  []graphClass
	classIdx map[graphClass]uint32 // asked once per class: the scanner keeps each index (graphIdx)

	roots     []uint32             // nodes named by GC root records (duplicates kept out)
	rootKind  map[uint32]byte      // node -> root sub-record tag of its first root record
	rootFrame map[uint32][2]uint32 // Java frame roots: node -> thread serial, frame number
	// weak maps a java.lang.ref.Reference node to the node its referent
	// field points at: a reference a path to a GC root must not take.
	weak map[uint32]uint32

	// marks are where pass 1 read every markEvery-th node (seek.go).
	marks     []mark
	markEvery int

	index       addrIndex
	parkedNodes int      // nodes() while addr is parked (park.go)
	meta        *scanner // pass 1's scanner: class names, field lists, strings

	// fused: pass 1 reads the references too, as raw ids (see fused.go)
	fused        bool
	separatePass bool // the references were read in a pass of their own
	fusedState

	// pass 2 and 3 state
	naming    bool   // pass 3: references are matched against want, not stored
	next      uint32 // node the next object read is
	refShapes map[uint64]*refShape
	missing   int64 // references to ids that are no object of the dump (dropped)
	refs      int64 // references stored (len(to) once pass 2 ended)

	// want maps a node to the node it must name its reference to (pass 3);
	// names receives "field", "[index]" or a static field's name.
	want    map[uint32][]uint32
	wantIDs map[uint64]uint32 // id -> node of the nodes want's lists hold
	wanted  []uint64          // bitset of want's and lengths' nodes: pass 3 skips the others' bytes
	names   map[[2]uint32]string
	// lengths holds the array length of the arrays a report shows (their
	// shallow sizes are rounded), read in pass 3.
	lengths map[uint32]int64
}

// newGraph prepares pass 1; with fused it reads the references too,
// into a temporary file of tmp.
func newGraph(sizeHint int64, fused bool, tmp *tempFiles, markEvery int) (*graph, error) {
	// Room for an object per 40 bytes of dump (they hold one per 40-120),
	// so that the arrays do not grow by copies that the heap would hold
	// twice: memory fresh from the system is not resident until written.
	n := max(sizeHint/40, 1024)
	g := &graph{
		addr:      make([]uint64, 1, n),
		cls:       make([]uint32, 1, n),
		size:      make([]uint32, 1, n),
		classIdx:  map[graphClass]uint32{},
		rootKind:  map[uint32]byte{},
		rootFrame: map[uint32][2]uint32{},
		lengths:   map[uint32]int64{},
		weak:      map[uint32]uint32{},
		markEvery: markEvery,
	}
	g.class(graphClass{kind: kindMirror}) // index 0: the super-root and class objects
	if fused {
		if err := g.startFused(n, tmp); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// class returns the index of c in the class table, adding it when new.
func (g *graph) class(c graphClass) uint32 {
	i, ok := g.classIdx[c]
	if !ok {
		i = uint32(len(g.classes))
		g.classes = append(g.classes, c)
		g.classIdx[c] = i
	}
	return i
}

// addNode numbers one object in pass 1 (pipe.go): cls is its class's
// index (class), length the array length (0 for instances and class
// objects).
func (g *graph) addNode(addr uint64, cls uint32, length uint32) {
	g.addr = append(g.addr, addr)
	g.cls = append(g.cls, cls)
	g.size = append(g.size, length)
	if g.fused {
		g.first = append(g.first, uint32(g.raw.n))
	}
}

// nodes is the number of nodes, the super-root included.
func (g *graph) nodes() int {
	if g.addr == nil {
		return g.parkedNodes
	}
	return len(g.addr)
}

// setSizes turns pass 1's array lengths into shallow sizes with the layout
// the histogram chose, in 8-byte words (sizes are 8-byte aligned; a uint32
// of words covers arrays up to 32 GiB).
func (g *graph) setSizes(z *sizer, l Layout, mirrorSize func(id uint64) int64) {
	shallow := make([]int64, len(g.classes))
	for i, c := range g.classes {
		if c.kind == kindInstance {
			shallow[i] = int64(alignUp(l.HeaderBytes(), objectAlignment))
			if sh := z.shape(c.id); sh != nil {
				shallow[i] = int64(sh.size)
			}
		}
	}
	sizeRange := func(from, to int) {
		for v := from; v < to; v++ {
			c := g.classes[g.cls[v]]
			var b int64
			switch c.kind {
			case kindInstance:
				b = shallow[g.cls[v]]
			case kindObjArray:
				b = l.ArrayBytes(l.RefBytes(), g.size[v])
			case kindPrimArray:
				b = l.ArrayBytes(typeSize(byte(c.id), 8), g.size[v])
			case kindMirror:
				b = mirrorSize(g.addr[v])
			}
			g.size[v] = uint32(min(b/objectAlignment, 1<<32-1))
		}
	}
	// A half on each core: every node's size depends on its class alone.
	mid := (len(g.size) + 1) / 2
	var wg sync.WaitGroup
	wg.Go(func() { sizeRange(mid, len(g.size)) })
	sizeRange(1, mid)
	wg.Wait()
	g.size[0] = 0
}

// shallow is node v's shallow size in bytes.
func (g *graph) shallow(v uint32) int64 { return int64(g.size[v]) * objectAlignment }

// addrIndex finds the node of an object id. A heap dump is mostly long runs
// of ascending ids (the heap region by region; one run per dumping thread
// in parallel dumps) after a stretch of class objects in no order. Each long
// run keeps its place in graph.addr and gets a bucket table over its id
// range, so that a lookup searches a few entries; the objects of short runs
// go to one sorted copy of their own. Only a dump of very many long runs
// pays for a sorted copy of every id (12 more bytes per object).
type addrIndex struct {
	runs []idRun // by lowest id
}

// idRun is a run of ascending ids.
type idRun struct {
	first  uint32   // node of ids[0] when order is nil
	ids    []uint64 // ascending (a slice of graph.addr, or a sorted copy)
	order  []uint32 // position -> node when ids is a sorted copy; nil otherwise
	bucket []uint32 // bucket -> first position with id >= the bucket's start
	shift  uint
	// rank, instead of bucket, when the run's ids are dense (rankIndex):
	// for each 64 slots of 8 bytes from ids[0] on, a word with a bit per
	// slot an object starts at, then the count of objects before them,
	// side by side, so that a lookup reads one place of memory.
	rank   []uint64
	ranked bool // rank, not bucket, is the index (also while parked)
	n      int  // len(ids) while the ids are parked
	// parkedAt and parked place bucket or rank in the file they are
	// parked in.
	parkedAt, parked int
}

// rankBytes is the most a rank index may cost per id of its run, in
// bytes; a sparser run gets buckets (about 1 byte per id). A heap dumped
// in one run costs 16 bytes per 512 bytes of heap: 3 per id at 100-byte
// objects. Several runs of one parallel dump spread over the same
// addresses each cost what one run over all of them would.
const rankBytes = 8

const (
	longRun = 4096 // shorter runs are gathered into one sorted copy
	maxRuns = 64   // more long runs than this: one sorted copy of everything
)

func (g *graph) buildIndex() {
	var runs []idRun
	var short []uint32 // nodes of short runs
	start := 1
	for v := 2; v <= len(g.addr); v++ {
		if v < len(g.addr) && g.addr[v] > g.addr[v-1] {
			continue
		}
		if v-start >= longRun {
			runs = append(runs, idRun{first: uint32(start), ids: g.addr[start:v]})
		} else {
			for x := start; x < v; x++ {
				short = append(short, uint32(x))
			}
		}
		start = v
	}
	if len(runs) > maxRuns {
		runs, short = nil, make([]uint32, len(g.addr)-1)
		for i := range short {
			short[i] = uint32(i + 1)
		}
	}
	if len(short) > 0 {
		// Mostly ascending stretches: pdqsort finds them.
		slices.SortFunc(short, func(a, b uint32) int { return cmp.Compare(g.addr[a], g.addr[b]) })
		ids := make([]uint64, len(short))
		for i, v := range short {
			ids[i] = g.addr[v]
		}
		runs = append(runs, idRun{ids: ids, order: short})
	}
	for i := range runs {
		if r := &runs[i]; r.order != nil || !r.buildRank() {
			r.buildBuckets()
		}
	}
	slices.SortFunc(runs, func(a, b idRun) int { return cmp.Compare(a.ids[0], b.ids[0]) })
	g.index = addrIndex{runs: runs}
}

func (r *idRun) buildBuckets() {
	if len(r.ids) == 0 {
		return
	}
	// About four ids per bucket: a bucket costs 4 bytes, a lookup searches
	// its bucket.
	span := r.ids[len(r.ids)-1] - r.ids[0]
	for span>>r.shift > uint64(len(r.ids))/4 {
		r.shift++
	}
	r.bucket = make([]uint32, span>>r.shift+2)
	p := 0
	for b := range r.bucket {
		start := r.ids[0] + uint64(b)<<r.shift
		for p < len(r.ids) && r.ids[p] < start {
			p++
		}
		r.bucket[b] = uint32(p)
	}
}

// buildRank makes the rank index when the run's ids are 8-byte aligned
// and dense enough (rankBytes), and reports whether it did.
func (r *idRun) buildRank() bool {
	lo := r.ids[0]
	words := (r.ids[len(r.ids)-1]-lo)>>9 + 1
	if words*16 > uint64(len(r.ids))*rankBytes {
		return false
	}
	for _, id := range r.ids {
		if id&7 != 0 {
			return false
		}
	}
	r.rank, r.ranked = make([]uint64, 2*words), true
	for _, id := range r.ids {
		slot := (id - lo) >> 3
		r.rank[slot>>6*2] |= 1 << (slot & 63)
	}
	count := uint64(0)
	for w := 0; w < len(r.rank); w += 2 {
		r.rank[w+1] = count
		count += uint64(bits.OnesCount64(r.rank[w]))
	}
	return true
}

// lookup returns the node of id, or 0 when no object has it.
func (ix *addrIndex) lookup(id uint64) uint32 {
	for i := range ix.runs {
		r := &ix.runs[i]
		if id < r.ids[0] {
			break // runs are by lowest id
		}
		if v := r.lookup(id); v != 0 {
			return v
		}
	}
	return 0
}

func (r *idRun) lookup(id uint64) uint32 {
	if id > r.ids[len(r.ids)-1] {
		return 0
	}
	if r.ranked {
		slot := (id - r.ids[0]) >> 3
		w := slot >> 6 * 2
		bit := uint64(1) << (slot & 63)
		if r.rank[w]&bit == 0 || id&7 != 0 {
			return 0
		}
		return r.first + uint32(r.rank[w+1]) + uint32(bits.OnesCount64(r.rank[w]&(bit-1)))
	}
	b := (id - r.ids[0]) >> r.shift
	lo, hi := int(r.bucket[b]), int(r.bucket[b+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.ids[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo >= len(r.ids) || r.ids[lo] != id {
		return 0
	}
	if r.order != nil {
		return r.order[lo]
	}
	return r.first + uint32(lo)
}

// refShape says where an instance's references sit in its dump bytes: the
// class's own fields come first, then its super's, each reference idSize
// bytes.
type refShape struct {
	size    int   // instance data bytes
	offsets []int // byte offsets of reference fields
	names   []uint64
	weak    int // offset of java.lang.ref.Reference.referent, or -1
}

func (g *graph) refShape(classID uint64) *refShape {
	s := g.meta
	if rs, ok := g.refShapes[classID]; ok {
		return rs
	}
	rs := &refShape{weak: -1}
	off := 0
	for id, depth := classID, 0; id != 0 && depth < 256; depth++ {
		c := s.classes[id]
		if g.fused && (c == nil || !c.dumped) {
			// An instance before its class (or a superclass): the references
			// need a pass of their own. The offsets found so far are dropped
			// with the shape: without the whole chain its size is unknown.
			g.fusedFailed = true
			return &refShape{weak: -1}
		}
		if c == nil {
			break
		}
		isRef := s.className(id) == "java.lang.ref.Reference"
		for _, f := range c.fields {
			if f.typ == typeObject {
				if isRef && s.utf8[f.nameID] == "referent" {
					rs.weak = off
				}
				rs.offsets = append(rs.offsets, off)
				rs.names = append(rs.names, f.nameID)
			}
			off += typeSize(f.typ, s.d.idSize)
		}
		id = c.superID
	}
	rs.size = off
	g.refShapes[classID] = rs
	return rs
}

// startPass2 prepares the edge pass: the index from ids to nodes, and the
// edge arrays sized from pass 1 (references are about twice the objects).
func (g *graph) startPass2() {
	g.buildIndex()
	g.naming = false
	g.first = make([]uint32, len(g.addr)+1)
	g.to = make([]uint32, 0, 2*len(g.addr))
	g.refShapes = map[uint64]*refShape{}
	g.next = 1
}

// startPass3 prepares the naming pass for the references in want.
func (g *graph) startPass3(want map[uint32][]uint32) {
	g.naming = true
	g.want = want
	g.wanted = make([]uint64, (len(g.addr)+63)/64)
	for v := range want {
		g.wanted[v/64] |= 1 << (v % 64)
	}
	for v := range g.lengths {
		g.wanted[v/64] |= 1 << (v % 64)
	}
	g.names = map[[2]uint32]string{}
	g.refShapes = map[uint64]*refShape{}
	g.next = 1
	// The references of a node asked for are matched by id: an index
	// lookup for each element of a large array on a path would page in
	// all the ids.
	g.wantIDs = map[uint64]uint32{}
	for _, ys := range want {
		for _, y := range ys {
			g.wantIDs[g.addr[y]] = y
		}
	}
}

// begin opens the next node's reference list.
func (g *graph) begin() (uint32, error) {
	v := g.next
	if int(v) >= len(g.addr) {
		return 0, fmt.Errorf("object %d not seen by the first pass (the dump changed between passes?)", v)
	}
	if !g.naming {
		g.first[v] = uint32(len(g.to))
	}
	g.next++
	return v, nil
}

// skipping reports, in pass 3, that the node being read has nothing to name.
func (g *graph) skipping() bool {
	v := g.next - 1
	return g.naming && g.wanted[v/64]&(1<<(v%64)) == 0
}

// edge adds a reference from the node being read to id and returns the
// node it points at (0: none).
func (g *graph) edge(id uint64) uint32 {
	if id == 0 {
		return 0
	}
	if g.naming {
		return g.wantIDs[id]
	}
	w := g.index.lookup(id)
	if w == 0 {
		g.missing++
		return 0
	}
	g.to = append(g.to, w)
	return w
}

// arrayLength records, in pass 3, the length of an array a report shows.
func (g *graph) arrayLength(n uint32) {
	if !g.naming {
		return
	}
	if _, ok := g.lengths[g.next-1]; ok {
		g.lengths[g.next-1] = int64(n)
	}
}

// name records, in pass 3, how the node being read holds w when w is the
// reference asked for.
func (g *graph) name(w uint32, name func() string) {
	if !g.naming || w == 0 {
		return
	}
	v := g.next - 1
	for _, y := range g.want[v] {
		if y != w {
			continue
		}
		if _, done := g.names[[2]uint32{v, w}]; !done {
			g.names[[2]uint32{v, w}] = name()
		}
	}
}

// endPass2 closes the last reference list.
func (g *graph) endPass2() {
	for v := int(g.next); v < len(g.first); v++ {
		g.first[v] = uint32(len(g.to))
	}
	g.refs = int64(len(g.to))
	g.refShapes = nil
}

// root records a GC root record's object and returns its node when this is
// its first root record (0 otherwise).
func (g *graph) root(id uint64, tag byte) uint32 {
	if g.naming {
		return 0 // pass 3: the roots are known; a lookup would page in the ids
	}
	w := g.index.lookup(id)
	if w == 0 {
		return 0
	}
	if _, ok := g.rootKind[w]; ok {
		return 0
	}
	g.rootKind[w] = tag
	g.roots = append(g.roots, w)
	return w
}

// instanceEdges reads the references of one instance's field bytes.
func (g *graph) instanceEdges(classID uint64, data []byte, idSize int) {
	v := g.next - 1
	rs := g.refShape(classID)
	if rs.size > len(data) {
		return // the class's fields do not fit its own record: no references trusted
	}
	g.name(g.edge(classID), func() string { return "<class>" })
	for i, off := range rs.offsets {
		id := getID(data[off:], idSize)
		w := g.edge(id)
		if off == rs.weak && w != 0 && !g.naming {
			g.weak[v] = w
		}
		g.name(w, func() string { return g.meta.utf8[rs.names[i]] })
	}
}

// arrayEdges reads a piece of an object array's elements, the first of
// them element number base.
func (g *graph) arrayEdges(b []byte, idSize int, base int) {
	for i := 0; i+idSize <= len(b); i += idSize {
		var w uint32
		if idSize == 8 {
			w = g.edge(binary.BigEndian.Uint64(b[i:]))
		} else {
			w = g.edge(uint64(binary.BigEndian.Uint32(b[i:])))
		}
		if g.naming {
			g.name(w, func() string { return fmt.Sprintf("[%d]", base+i/idSize) })
		}
	}
}

// succ is node v's references; the super-root's are the GC roots.
func (g *graph) succ(v uint32) []uint32 {
	if v == 0 {
		return g.roots
	}
	return g.to[g.first[v]:g.first[v+1]]
}
