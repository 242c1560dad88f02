package hprof

import "encoding/binary"

// Pass 1 numbers the objects and, fused, writes their references as raw
// ids (fused.go): appends to the graph's arrays and to a temporary file.
// A goroutine of their own makes them, a batch of objects at a time,
// beside the parser: on two cores the parse and the appends each take
// about half of pass 1. The parser hands over plain values (id, class,
// array length, reference ids) and keeps its own count of the nodes; the
// graph's node arrays, class table and reference file are the
// goroutine's alone until close returns. What the parser alone touches
// stays on its side: the class metadata and the reference shapes read
// from it, the graph's class table, the weak referents, the roots and the
// seek marks.

// nodePipe hands pass 1's objects to the goroutine that adds them to the
// graph.
type nodePipe struct {
	g    *graph
	next uint32 // node number of the next object handed over
	cur  *nodeBatch
	full chan *nodeBatch
	free chan *nodeBatch
	done chan struct{} // closed once every batch is applied
}

// nodeBatch is objects in dump order and the reference ids they hold,
// each object's after the previous one's. It is written on one core and
// read on the other, so its arrays are as small as an object's values
// allow: 20 bytes an object.
type nodeBatch struct {
	addr   []uint64
	cls    []uint32 // index into the graph's classes; more: not an object, more references of the last one (a batch ended inside it)
	length []uint32 // array length; 0 for instances and class objects
	refs   []uint32 // its ids in ids
	ids    []uint64
}

const more = 1<<32 - 1

const (
	pipeObjs    = 8192
	pipeIDs     = 32768
	pipeBatches = 4
)

// startPipe starts the goroutine; the graph's next node is g.nodes().
func startPipe(g *graph) *nodePipe {
	p := &nodePipe{
		g:    g,
		next: uint32(g.nodes()),
		full: make(chan *nodeBatch, pipeBatches),
		free: make(chan *nodeBatch, pipeBatches+1),
		done: make(chan struct{}),
	}
	for range pipeBatches + 1 {
		p.free <- &nodeBatch{
			addr:   make([]uint64, 0, pipeObjs),
			cls:    make([]uint32, 0, pipeObjs),
			length: make([]uint32, 0, pipeObjs),
			refs:   make([]uint32, 0, pipeObjs),
			ids:    make([]uint64, 0, pipeIDs),
		}
	}
	p.cur = <-p.free
	go p.apply()
	return p
}

func (p *nodePipe) apply() {
	defer close(p.done)
	g := p.g
	for b := range p.full {
		k := 0
		for i, c := range b.cls {
			if c != more {
				g.addNode(b.addr[i], c, b.length[i])
			}
			if n := int(b.refs[i]); n > 0 {
				g.raw.putAll(b.ids[k : k+n])
				k += n
			}
		}
		b.addr, b.cls, b.length, b.refs, b.ids = b.addr[:0], b.cls[:0], b.length[:0], b.refs[:0], b.ids[:0]
		p.free <- b
	}
}

// node hands over one object and returns its node number. The class
// table is the parser's: cls is the class's index in it (graph.class).
func (p *nodePipe) node(addr uint64, cls uint32, length uint32) uint32 {
	b := p.cur
	if len(b.cls) == cap(b.cls) {
		p.flush()
		b = p.cur
	}
	b.addr = append(b.addr, addr)
	b.cls = append(b.cls, cls)
	b.length = append(b.length, length)
	b.refs = append(b.refs, 0)
	v := p.next
	p.next++
	return v
}

// ref adds a reference of the object handed over last; null is none.
func (p *nodePipe) ref(id uint64) {
	if id == 0 {
		return
	}
	b := p.cur
	if len(b.ids) == cap(b.ids) {
		p.flush()
		b = p.cur
		b.addr, b.cls, b.length, b.refs = append(b.addr, 0), append(b.cls, more), append(b.length, 0), append(b.refs, 0)
	}
	b.ids = append(b.ids, id)
	b.refs[len(b.refs)-1]++
}

// refsFrom adds the references in b, ids of idSize bytes.
func (p *nodePipe) refsFrom(b []byte, idSize int) {
	if idSize == 8 {
		for i := 0; i+8 <= len(b); i += 8 {
			p.ref(binary.BigEndian.Uint64(b[i:]))
		}
		return
	}
	for i := 0; i+4 <= len(b); i += 4 {
		p.ref(uint64(binary.BigEndian.Uint32(b[i:])))
	}
}

func (p *nodePipe) flush() {
	p.full <- p.cur
	p.cur = <-p.free
}

// close hands over the last batch and waits until the graph holds every
// object.
func (p *nodePipe) close() {
	if p.cur == nil {
		return
	}
	if len(p.cur.cls) > 0 {
		p.full <- p.cur
	}
	p.cur = nil
	close(p.full)
	<-p.done
}
