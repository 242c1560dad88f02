package hprof

import (
	"fmt"
	"math"
)

const noParent = math.MaxUint32

// shortestPaths walks the graph breadth first from the GC roots, never
// through a Reference's referent, and returns each node's parent on a
// shortest path: 0 for the roots themselves, noParent when the node is not
// strongly reachable.
func shortestPaths(g *graph) []uint32 {
	parent := make([]uint32, g.nodes())
	for i := range parent {
		parent[i] = noParent
	}
	weak := make([]uint64, (g.nodes()+63)/64)
	for v := range g.weak {
		weak[v/64] |= 1 << (v % 64)
	}
	var queue fifo
	for _, r := range g.roots {
		if parent[r] == noParent {
			parent[r] = 0
			queue.push(r)
		}
	}
	for queue.len() > 0 {
		v := queue.pop()
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
				queue.push(w)
			}
		}
	}
	return parent
}

// fifo is a queue of node numbers in chunks, each handed back once read,
// so that it holds about the widest level of the search rather than
// every node it ever queued.
type fifo struct {
	chunks [][]uint32 // the first is read from head, the last appended to
	head   int
	free   [][]uint32
	n      int
}

const fifoChunk = 1 << 16

func (q *fifo) len() int { return q.n }

func (q *fifo) push(v uint32) {
	if k := len(q.chunks); k == 0 || len(q.chunks[k-1]) == fifoChunk {
		var c []uint32
		if f := len(q.free); f > 0 {
			c, q.free = q.free[f-1][:0], q.free[:f-1]
		} else {
			c = make([]uint32, 0, fifoChunk)
		}
		q.chunks = append(q.chunks, c)
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, v)
	q.n++
}

// pop takes the oldest value; the queue must not be empty.
func (q *fifo) pop() uint32 {
	c := q.chunks[0]
	v := c[q.head]
	q.head++
	q.n--
	if q.head == len(c) && (len(c) == fifoChunk || q.n == 0) {
		q.free = append(q.free, c)
		q.chunks = q.chunks[1:]
		q.head = 0
	}
	return v
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
