package hprof

import (
	"fmt"
	"math"
	"os"
)

const noParent = math.MaxUint32

// shortestPaths walks the graph breadth first from the GC roots, never
// through a Reference's referent, and returns each node's parent on a
// shortest path: 0 for the roots themselves, noParent when the node is not
// strongly reachable. q is an empty queue.
func shortestPaths(g *graph, q *fifo) ([]uint32, error) {
	parent := make([]uint32, g.nodes())
	for i := range parent {
		parent[i] = noParent
	}
	weak := make([]uint64, (g.nodes()+63)/64)
	for v := range g.weak {
		weak[v/64] |= 1 << (v % 64)
	}
	for _, r := range g.roots {
		if parent[r] == noParent {
			parent[r] = 0
			q.push(r)
		}
	}
	for q.len() > 0 {
		v := q.pop()
		skip := uint32(0)
		if weak[v/64]&(1<<(v%64)) != 0 {
			skip = g.weak[v]
		}
		for _, w := range g.succ(v) {
			if w == skip {
				skip = 0 // only the referent field itself; another field may hold it too
				continue
			}
			if parent[w] == noParent {
				parent[w] = v
				q.push(w)
			}
		}
	}
	if err := q.close(); err != nil {
		return nil, err
	}
	return parent, nil
}

// fifo is a queue of node numbers whose middle waits in a temporary file:
// in memory are only the chunk being read and the one being filled. A
// level of a search can be most of the heap (13 M of the 20 M objects of
// the benchmark's dump: the elements of the arrays a list holds), and the
// search runs beside the depth-first one (dominators), whose memory it
// shares.
type fifo struct {
	head []uint32 // read from h on
	h    int
	tail []uint32 // appended to
	f    *os.File // whole chunks, from rOff (oldest) to wOff: after head, before tail
	rOff int64
	wOff int64
	n    int
	err  error // the file's first error (close reports it)
}

const fifoChunk = 1 << 16

// newFifo makes an empty queue with its file.
func newFifo(tmp *tempFiles) (*fifo, error) {
	f, err := tmp.create("breadth-first queue")
	if err != nil {
		return nil, err
	}
	return &fifo{f: f, tail: make([]uint32, 0, fifoChunk), head: make([]uint32, 0, fifoChunk)}, nil
}

func (q *fifo) len() int { return q.n }

func (q *fifo) push(v uint32) {
	q.tail = append(q.tail, v)
	q.n++
	if len(q.tail) == fifoChunk {
		if _, err := q.f.WriteAt(asBytes(q.tail), q.wOff); err != nil && q.err == nil {
			q.err = err
		}
		q.wOff += fifoChunk * 4
		q.tail = q.tail[:0]
	}
}

// pop takes the oldest value; the queue must not be empty.
func (q *fifo) pop() uint32 {
	if q.h == len(q.head) {
		q.h = 0
		if q.rOff < q.wOff {
			q.head = q.head[:fifoChunk]
			if _, err := q.f.ReadAt(asBytes(q.head), q.rOff); err != nil && q.err == nil {
				q.err = err
			}
			q.rOff += fifoChunk * 4
		} else { // the file is read: the tail is next, and the file starts over
			q.head, q.tail = q.tail, q.head[:0]
			q.rOff, q.wOff = 0, 0
		}
	}
	v := q.head[q.h]
	q.h++
	q.n--
	return v
}

// close reports the file's first error; the caller drops the file.
func (q *fifo) close() error {
	if q.err != nil {
		return fmt.Errorf("breadth-first queue: temporary file %s: %w", q.f.Name(), q.err)
	}
	return nil
}

// maxPathSteps bounds a shown path: a linked list can be a million deep.
// The root's end and the object's end are kept, the middle elided.
const (
	maxPathSteps = 32
	pathHead     = 8
)

// path is v's shortest strong path from a GC root and the root's kind;
// each step's reference to the next is added to want for pass 3 to name.
func (g *graph) path(parent []uint32, v uint32, want map[uint32][]uint32) ([]PathStep, string) {
	if parent[v] == noParent {
		return nil, ""
	}
	var chain []uint32
	for x := v; ; x = parent[x] {
		chain = append(chain, x)
		if parent[x] == 0 {
			break
		}
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	root := g.rootLabel(chain[0])
	if len(chain) > maxPathSteps {
		tail := maxPathSteps - pathHead - 1
		elided := len(chain) - pathHead - tail
		kept := append(append(append([]uint32{}, chain[:pathHead]...), 0), chain[len(chain)-tail:]...)
		steps := g.steps(kept, want)
		steps[pathHead] = PathStep{Class: fmt.Sprintf("… %d more objects …", elided)}
		return steps, root
	}
	return g.steps(chain, want), root
}

// steps describes a chain of nodes (0: an elision) and asks pass 3 to name
// each reference from one node to the next.
func (g *graph) steps(chain []uint32, want map[uint32][]uint32) []PathStep {
	steps := make([]PathStep, len(chain))
	for i, x := range chain {
		if x == 0 {
			continue
		}
		steps[i] = PathStep{ID: g.addr[x], Class: g.className(x)}
		if i+1 < len(chain) && chain[i+1] != 0 {
			want[x] = append(want[x], chain[i+1])
		}
	}
	return steps
}

// nameSteps fills in the field names and array lengths pass 3 read.
func (r *Retained) nameSteps(g *graph) {
	var fill func(x *Retainer)
	fill = func(x *Retainer) {
		if n, ok := g.lengths[x.node]; ok {
			x.Length = n
		}
		for i := range x.Children {
			x.Children[i].Field = g.names[[2]uint32{x.node, x.Children[i].node}]
			fill(&x.Children[i])
		}
		for i := range x.Path {
			if i+1 < len(x.Path) && x.Path[i].ID != 0 && x.Path[i+1].ID != 0 {
				a, b := g.index.lookup(x.Path[i].ID), g.index.lookup(x.Path[i+1].ID)
				x.Path[i].Field = g.names[[2]uint32{a, b}]
			}
		}
	}
	for i := range r.Dominators {
		fill(&r.Dominators[i])
	}
	for i := range r.Largest {
		fill(&r.Largest[i].Holder)
	}
}

// rootLabel names the root a node is: its kind, and for a local variable
// the frame it lives in ("Java frame BigHeap.main(BigHeap.java:31)").
func (g *graph) rootLabel(v uint32) string {
	kind := rootName(g.rootKind[v])
	if f, ok := g.rootFrame[v]; ok && g.meta != nil && g.meta.frames != nil {
		if name := g.meta.frameName(f[0], f[1]); name != "" {
			return kind + " " + name
		}
	}
	return kind
}

// rootName names a GC root sub-record tag.
func rootName(tag byte) string {
	switch tag {
	case subRootJNIGlobal:
		return "JNI global"
	case subRootJNILocal:
		return "JNI local"
	case subRootJavaFrame:
		return "Java frame"
	case subRootNativeStack:
		return "native stack"
	case subRootStickyClass:
		return "system class"
	case subRootThreadBlock:
		return "thread block"
	case subRootMonitorUsed:
		return "busy monitor"
	case subRootThreadObj:
		return "thread"
	}
	return "unknown root"
}
