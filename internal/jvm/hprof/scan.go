package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

const maxLayouts = 8

// classInfo is everything kept per class: no objects, only counters and
// what the layout needs.
type classInfo struct {
	nameID      uint64
	superID     uint64
	dumped      bool
	fields      []fieldDesc // instance fields, dump order
	staticRefs  int
	staticPrims []int
	instances   int64
	minGap      int64 // smallest distance from an instance to the next object
	// graphIdx is, by kind (kindInstance, kindObjArray), the graph's index
	// of the class plus 1 (0: not asked yet), kept here so that pass 1
	// numbers an object without a lookup.
	graphIdx   [2]uint32
	arrays     int64
	arrayBytes [maxLayouts]int64
}

type fieldDesc struct {
	nameID uint64
	typ    byte
}

type primStat struct {
	count int64
	bytes [maxLayouts]int64
}

// scanner makes one pass over the records and keeps per-class counters.
type scanner struct {
	d     *decoder
	opts  Options
	cands []Layout

	utf8      map[uint64]string
	loadNames map[uint64]uint64 // class object id -> name id
	classes   map[uint64]*classInfo
	lastID    uint64
	lastClass *classInfo
	prevID    uint64 // the class met before the last
	prevClass *classInfo
	prims     [12]primStat
	primIdx   [12]uint32 // graph's class index plus 1 of each primitive array type (graphIdx)

	// arrayGeom[i] holds, for candidate layout i, the element-0 offset by
	// element size (index 1, 2, 4, 8) and the reference size at index 0,
	// so the per-array size needs no division.
	arrayGeom [maxLayouts][9]int64
	score     [maxLayouts]int64
	prevAddr  uint64
	prevSizes [maxLayouts]int64
	prevValid bool
	prevInst  *classInfo
	arrayObs  int64 // adjacent pairs starting with an array

	top     topObjects
	strings *stringTracker

	version  string
	dumpTime int64 // header: when the dump was written, epoch ms
	records  int64

	// g, when set, collects the object graph: nodes in pass 1, references
	// and GC roots in pass 1 too (fused.go) or in pass 2 (see graph.go).
	g      *graph
	pipe   *nodePipe // pass 1: hands the objects to the goroutine adding them to g
	nodes  bool      // number the objects into g (pass 1)
	refs   bool      // read the references into g (pass 1 when fused, pass 2, pass 3)
	frames *frames   // stack traces, read with the graph
}

func (s *scanner) header() error {
	b, err := s.d.next(19)
	if err != nil {
		return fmt.Errorf("offset 0: header cut short: %v", err)
	}
	if !bytes.HasPrefix(b, []byte("JAVA PROFILE 1.0.")) || b[18] != 0 || (b[17] != '1' && b[17] != '2') {
		return fmt.Errorf("offset 0: not an HPROF dump (want \"JAVA PROFILE 1.0.1\" or \"1.0.2\", got %q)", printable(b))
	}
	s.version = string(b[:18])
	idSize, err := s.d.u4()
	if err != nil {
		return fmt.Errorf("offset 19: header cut short: %v", err)
	}
	if idSize != 4 && idSize != 8 {
		return fmt.Errorf("offset 19: identifier size %d, want 4 or 8", idSize)
	}
	s.d.idSize = int(idSize)
	s.cands = candidateLayouts(int(idSize))
	s.initGeometry()
	ts, err := s.d.next(8)
	if err != nil {
		return fmt.Errorf("offset 23: header cut short: %v", err)
	}
	s.dumpTime = int64(binary.BigEndian.Uint64(ts))
	return nil
}

func printable(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out = append(out, c)
	}
	return string(out)
}

// run reads records to the end of input.
func (s *scanner) run() error {
	if err := s.header(); err != nil {
		return err
	}
	for {
		eof, err := s.d.atEOF()
		if err != nil {
			return err
		}
		if eof {
			return nil
		}
		start := s.d.offset()
		h, err := s.d.next(9)
		if err != nil {
			return err
		}
		tag := h[0]
		length := int64(uint32(h[5])<<24 | uint32(h[6])<<16 | uint32(h[7])<<8 | uint32(h[8]))
		s.records++
		if err := s.record(tag, length); err != nil {
			if errors.Is(err, errShort) {
				return err
			}
			return fmt.Errorf("offset %d: record 0x%02X: %w", start, tag, err)
		}
	}
}

func (s *scanner) record(tag byte, length int64) error {
	idSize := int64(s.d.idSize)
	switch tag {
	case tagUTF8:
		if length < idSize {
			return fmt.Errorf("UTF8: length %d shorter than an identifier", length)
		}
		id, err := s.d.id()
		if err != nil {
			return err
		}
		n := length - idSize
		if n > int64(s.d.max) {
			return s.d.skip(n)
		}
		b, err := s.d.next(int(n))
		if err != nil {
			return err
		}
		s.utf8[id] = string(b)
		return nil
	case tagLoadClass:
		if length != 8+2*idSize {
			return fmt.Errorf("LOAD CLASS: length %d, want %d", length, 8+2*idSize)
		}
		b, err := s.d.next(int(length))
		if err != nil {
			return err
		}
		classID := getID(b[4:], s.d.idSize)
		nameID := getID(b[8+idSize:], s.d.idSize)
		s.loadNames[classID] = nameID
		if s.frames != nil {
			s.frames.classBySerial[binary.BigEndian.Uint32(b)] = classID
		}
		if s.strings != nil && s.utf8[nameID] == "java/lang/String" {
			s.strings.classID = classID
		}
		return nil
	case tagHeapDump, tagHeapDumpSegment:
		return s.heap(length)
	case tagStackFrame:
		if s.frames != nil {
			return s.stackFrameRecord(length)
		}
		return s.d.skip(length)
	case tagStackTrace:
		if s.frames != nil {
			return s.stackTraceRecord(length)
		}
		return s.d.skip(length)
	case 0x03, 0x06, 0x07, 0x0A, 0x0B, 0x0D, 0x0E, tagHeapDumpEnd:
		return s.d.skip(length)
	}
	return fmt.Errorf("unknown record tag")
}

// heap reads the sub-records of one HEAP DUMP (SEGMENT) record.
func (s *scanner) heap(length int64) error {
	end := s.d.offset() + length
	for s.d.offset() < end {
		at := s.d.offset()
		tag, err := s.d.u1()
		if err != nil {
			return err
		}
		nodes := uint32(0)
		if s.nodes {
			nodes = s.pipe.next
		}
		if err := s.sub(tag); err != nil {
			if errors.Is(err, errShort) {
				return err
			}
			return fmt.Errorf("sub-record 0x%02X at offset %d: %w", tag, at, err)
		}
		if s.nodes && s.pipe.next > nodes {
			s.g.markNode(nodes, at, end)
		}
	}
	if s.d.offset() != end {
		return fmt.Errorf("sub-records run %d bytes past the segment end at offset %d", s.d.offset()-end, end)
	}
	return nil
}

func (s *scanner) sub(tag byte) error {
	id := s.d.idSize
	switch tag {
	case subInstanceDump:
		return s.instance()
	case subObjArrayDump:
		return s.objArray()
	case subPrimArrayDump:
		return s.primArray()
	case subClassDump:
		return s.classDump()
	case subRootUnknown, subRootStickyClass, subRootMonitorUsed:
		return s.gcRoot(tag, 0)
	case subRootJNIGlobal:
		return s.gcRoot(tag, id)
	case subRootJNILocal, subRootJavaFrame, subRootThreadObj:
		return s.gcRoot(tag, 8)
	case subRootNativeStack, subRootThreadBlock:
		return s.gcRoot(tag, 4)
	case subHeapDumpInfo:
		return s.d.skip(int64(id + 4))
	}
	return fmt.Errorf("unknown heap dump sub-record tag")
}

// gcRoot reads a root record: the object id, then extra bytes.
func (s *scanner) gcRoot(tag byte, extra int) error {
	if s.g == nil || !s.refs {
		return s.d.skip(int64(s.d.idSize + extra))
	}
	id, err := s.d.id()
	if err != nil {
		return err
	}
	if tag == subRootJavaFrame {
		return s.javaFrameRoot(id)
	}
	if s.g.fused {
		s.g.rawRoot(rawRoot{id: id, tag: tag})
	} else {
		s.g.root(id, tag)
	}
	return s.d.skip(int64(extra))
}

func (s *scanner) initGeometry() {
	for i, l := range s.cands {
		s.arrayGeom[i][0] = int64(l.RefBytes())
		for _, es := range []int{1, 2, 4, 8} {
			s.arrayGeom[i][es] = int64(l.arrayBase(es))
		}
	}
}

func (s *scanner) class(id uint64) *classInfo {
	if id == s.lastID && s.lastClass != nil {
		return s.lastClass
	}
	// Two classes taking turns (instances and the arrays they hold) miss
	// a one-entry cache every time.
	if id == s.prevID && s.prevClass != nil {
		s.prevID, s.prevClass, s.lastID, s.lastClass = s.lastID, s.lastClass, id, s.prevClass
		return s.lastClass
	}
	c := s.classes[id]
	if c == nil {
		c = &classInfo{}
		s.classes[id] = c
	}
	s.prevID, s.prevClass = s.lastID, s.lastClass
	s.lastID, s.lastClass = id, c
	return c
}

func (s *scanner) instance() error {
	idSize := s.d.idSize
	b, err := s.d.next(2*idSize + 8)
	if err != nil {
		return err
	}
	addr := getID(b, idSize)
	classID := getID(b[idSize+4:], idSize)
	n := int64(uint32(b[2*idSize+4])<<24 | uint32(b[2*idSize+5])<<16 | uint32(b[2*idSize+6])<<8 | uint32(b[2*idSize+7]))
	c := s.class(classID)
	c.instances++
	s.observe(addr)
	s.prevValid = false
	s.prevInst = c
	s.top.offer(n, addr, classID, -1)
	if s.g != nil {
		if s.nodes {
			s.pipe.node(addr, s.graphIdx(&c.graphIdx[kindInstance], graphClass{classID, kindInstance}), 0)
		}
		if s.refs && s.pipe != nil {
			return s.pipeInstanceRefs(classID, n)
		}
		if s.refs {
			return s.instanceEdges(classID, n)
		}
	}
	if s.strings != nil && classID == s.strings.classID && s.strings.valueOff >= 0 && n <= int64(s.d.max) {
		v, err := s.d.next(int(n))
		if err != nil {
			return err
		}
		s.strings.addString(v, idSize)
		return nil
	}
	return s.d.skip(n)
}

func (s *scanner) objArray() error {
	idSize := s.d.idSize
	b, err := s.d.next(2*idSize + 8)
	if err != nil {
		return err
	}
	addr := getID(b, idSize)
	n := uint32(b[idSize+4])<<24 | uint32(b[idSize+5])<<16 | uint32(b[idSize+6])<<8 | uint32(b[idSize+7])
	classID := getID(b[idSize+8:], idSize)
	c := s.class(classID)
	c.arrays++
	s.observe(addr)
	for i := range s.cands {
		g := &s.arrayGeom[i]
		ref := g[0]
		sz := (g[ref] + ref*int64(n) + objectAlignment - 1) &^ (objectAlignment - 1)
		c.arrayBytes[i] += sz
		s.prevSizes[i] = sz
	}
	s.prevValid = true
	s.prevInst = nil
	s.top.offer(int64(n)*8, addr, classID, int64(n))
	if s.g != nil {
		if s.nodes {
			s.pipe.node(addr, s.graphIdx(&c.graphIdx[kindObjArray], graphClass{classID, kindObjArray}), n)
		}
		if s.refs && s.pipe != nil {
			return s.pipeArrayRefs(classID, n)
		}
		if s.refs {
			return s.arrayEdges(classID, n)
		}
	}
	return s.d.skip(int64(n) * int64(idSize))
}

func (s *scanner) primArray() error {
	idSize := s.d.idSize
	b, err := s.d.next(idSize + 9)
	if err != nil {
		return err
	}
	addr := getID(b, idSize)
	n := uint32(b[idSize+4])<<24 | uint32(b[idSize+5])<<16 | uint32(b[idSize+6])<<8 | uint32(b[idSize+7])
	t := b[idSize+8]
	es := typeSize(t, idSize)
	if es == 0 || t == typeObject {
		return fmt.Errorf("primitive array of type %d", t)
	}
	p := &s.prims[t]
	p.count++
	s.observe(addr)
	for i := range s.cands {
		sz := (s.arrayGeom[i][es] + int64(es)*int64(n) + objectAlignment - 1) &^ (objectAlignment - 1)
		p.bytes[i] += sz
		s.prevSizes[i] = sz
	}
	s.prevValid = true
	s.prevInst = nil
	if s.g != nil {
		if s.nodes {
			s.pipe.node(addr, s.graphIdx(&s.primIdx[t], graphClass{uint64(t), kindPrimArray}), n)
		} else if s.refs {
			if _, err := s.g.begin(); err != nil {
				return err
			}
			s.g.arrayLength(n)
		}
	}
	data := int64(n) * int64(es)
	s.top.offer(data, addr, uint64(t), int64(n))
	if s.strings != nil && (t == typeByte || t == typeChar) {
		return s.strings.addArray(s.d, addr, t, data)
	}
	return s.d.skip(data)
}

// observe counts, for each candidate layout, whether the previous array's
// predicted size equals the distance to this object: the heap dumper walks
// the heap in address order and identifiers are addresses, so adjacent
// objects reveal the true sizes.
func (s *scanner) observe(addr uint64) {
	if addr <= s.prevAddr {
		s.prevAddr = addr
		return
	}
	delta := int64(addr - s.prevAddr)
	s.prevAddr = addr
	if c := s.prevInst; c != nil && (c.minGap == 0 || delta < c.minGap) {
		c.minGap = delta
	}
	if !s.prevValid {
		return
	}
	s.arrayObs++
	for i := range s.cands {
		if s.prevSizes[i] == delta {
			s.score[i]++
		}
	}
}

// graphIdx is the graph's index of class c, cached in *idx (its index
// plus 1; 0 when not asked yet).
func (s *scanner) graphIdx(idx *uint32, c graphClass) uint32 {
	if *idx == 0 {
		*idx = s.g.class(c) + 1
	}
	return *idx - 1
}
