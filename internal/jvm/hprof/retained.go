package hprof

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Retained says who holds the heap: the dominator tree of the objects
// reachable from the GC roots. An object's retained size is what a
// collection would free if it became unreachable: its own size plus that
// of every object only reachable through it.
type Retained struct {
	Objects     int64 `json:"objects"`     // objects in the dump, class objects included
	References  int64 `json:"references"`  // non-null references that resolved to an object
	MissingRefs int64 `json:"missingRefs"` // references to ids no object of the dump has (dropped)
	Roots       int   `json:"roots"`       // distinct objects named by GC root records
	Reachable   int64 `json:"reachable"`   // objects reachable from the roots
	// Unreachable objects are garbage a dump taken without a full GC
	// (GC.heap_dump -all) still holds; they retain nothing.
	Unreachable      int64 `json:"unreachable"`
	UnreachableBytes int64 `json:"unreachableBytes"`
	ReachableBytes   int64 `json:"reachableBytes"`

	// Dominators are the top of the dominator tree: objects no other single
	// object holds (held by GC roots, or by several objects at once),
	// largest retained first.
	Dominators []Retainer `json:"dominators"`
	// ByClass groups every top-level dominator by its class, largest
	// retained first.
	ByClass []RetainedClass `json:"byClass"`
	// Owners groups retained memory by what it means to Spark: the highest
	// object of each dominator chain whose class belongs to an owner.
	Owners []Owner `json:"owners"`
	// Largest are the largest objects by their own size, each with the
	// top-level dominator that holds it; the same class under the same
	// holder is folded into one line.
	Largest []LargeObject `json:"largest"`
}

// Retainer is one object with what it retains and how it is reached.
type Retainer struct {
	ID       uint64 `json:"id"`
	Class    string `json:"class"`
	Length   int64  `json:"length"` // array length; -1 otherwise
	Shallow  int64  `json:"shallow"`
	Retained int64  `json:"retained"`
	// Path leads from a GC root to the object, shortest first, never
	// through a weak, soft, phantom or final reference's referent.
	// Empty when the object is only reachable through such references.
	Path []PathStep `json:"path"`
	Root string     `json:"root,omitempty"` // kind of the GC root the path starts at
	// Children are the largest objects this one dominates directly (the
	// next level of the dominator tree), a few levels deep for the top
	// dominators.
	Children []Retainer `json:"children,omitempty"`
	// Field is how its parent in the tree holds a child (a field name,
	// "[i]", "static NAME"), empty for a top-level dominator and for a
	// child the parent holds only through other objects.
	Field string `json:"field,omitempty"`

	node uint32
}

// PathStep is one object on a path to a GC root and the reference it
// holds the next step by: a field name, "[i]" for an array element,
// "static NAME", "<class>", "<super>" or "<classloader>".
type PathStep struct {
	ID    uint64 `json:"id"`
	Class string `json:"class"`
	Field string `json:"field,omitempty"`
}

// RetainedClass is the top-level dominators of one class.
type RetainedClass struct {
	Class    string `json:"class"`
	Objects  int64  `json:"objects"`
	Shallow  int64  `json:"shallow"`
	Retained int64  `json:"retained"`
}

// LargeObject is one or more objects of a class held by the same top-level
// dominator.
type LargeObject struct {
	Class  string   `json:"class"`
	Count  int      `json:"count"`
	Bytes  int64    `json:"bytes"` // shallow, all of them
	IDs    []uint64 `json:"ids"`   // the first few
	Holder Retainer `json:"holder"`
}

// RetainedOptions tune the dominator analysis.
type RetainedOptions struct {
	Options
	Top int // dominators, classes and largest objects to report; 0: 20

	keepEdges    bool   // tests: keep the references, and every array in memory past the analysis
	separateRefs bool   // tests: read the references in a pass of their own, as when pass 1 cannot
	tempDir      string // temporary files' directory; "": os.TempDir()
	markEvery    int    // tests: node stride of pass 3's seek marks; 0: markEvery
	// phase, when set, is called as each phase of the analysis ends
	// (benchmarks: time and memory per phase).
	phase func(name string)
}

// mark tells opts.phase that a phase ended.
func (o RetainedOptions) mark(name string) {
	if o.phase != nil {
		o.phase(name)
	}
}

// ErrIncomplete: the dump ends inside a record.
var ErrIncomplete = errors.New("dump ends inside a record")

// Opener opens the dump again for each pass; the analysis reads it twice
// (three times when pass 1 cannot read the references) rather than keep it.
// When what it opens is also an io.ReaderAt over the same uncompressed
// bytes (an *os.File of a plain dump), the last pass reads only the
// records it names instead of the whole dump.
type Opener func() (io.ReadCloser, error)

// ReadRetained computes the histogram and the dominator tree of a dump.
// Memory grows with the object count, not the dump size: each phase holds
// only the flat arrays it reads (20 bytes per object in pass 1, the
// largest; 13 per object and 4 per reference while the graph is walked),
// the others wait in temporary files (spill.go); measured, about 23 bytes
// per object of peak RSS (BenchmarkReadFileRetained,
// BenchmarkReadFileRetainedSmall).
//
// A dump cut short yields its histogram with an error wrapping
// ErrIncomplete: the dominator tree needs every object.
func ReadRetained(ctx context.Context, open Opener, opts RetainedOptions) (*Histogram, *Retained, error) {
	a, err := analyze(ctx, open, opts)
	if errors.Is(err, ErrIncomplete) {
		return a.h, nil, err
	}
	if err != nil {
		return nil, nil, err
	}
	return a.h, a.r, nil
}

// analysis is everything the passes build, kept for tests.
type analysis struct {
	h      *Histogram
	g      *graph
	t      *domTree
	parent []uint32 // shortest strong paths (see shortestPaths)
	r      *Retained
}

func analyze(ctx context.Context, open Opener, opts RetainedOptions) (*analysis, error) {
	if opts.Top <= 0 {
		opts.Top = defaultTop
	}
	base := opts.Options
	if base.Top <= 0 {
		base.Top = max(opts.Top, defaultTop)
	}
	tmp := &tempFiles{dir: opts.tempDir, inMemory: opts.keepEdges}
	defer tmp.close()
	if opts.markEvery <= 0 {
		opts.markEvery = markEvery
	}
	g, err := newGraph(base.SizeHint, !opts.separateRefs, tmp, opts.markEvery)
	if err != nil {
		return nil, err
	}
	a := &analysis{g: g}
	h, s1, err := pass(ctx, open, base, g, false)
	if err != nil {
		return nil, err
	}
	if h.Truncated {
		return &analysis{h: h}, fmt.Errorf("offset %d: %w; the dominator tree needs every object", h.TruncatedAt, ErrIncomplete)
	}
	a.h = h
	g.meta = s1
	s1.strings = nil // summed up in h; its table is a few bytes per object
	parked, err := g.parkAttrs(tmp)
	if err != nil {
		return nil, err
	}
	release(g.nodes())
	opts.mark("pass 1")
	fused, err := g.resolve()
	if err != nil {
		return nil, err
	}
	if !fused {
		g.startPass2()
		if _, _, err := pass(ctx, open, base, g, true); err != nil {
			return nil, err
		}
		g.endPass2()
		opts.mark("pass 2")
	} else {
		opts.mark("resolve")
	}
	// The arrays hold no pointers, so a collection between phases is cheap;
	// it lets each phase reuse what the last one dropped instead of growing
	// the heap to twice what is live (release). From here on, what a phase
	// does not read waits in temporary files.
	if err := g.parkIDs(tmp, parked); err != nil {
		return nil, err
	}
	release(g.nodes())
	if err := g.loadRefs(); err != nil {
		return nil, err
	}
	// The shortest paths and the depth-first search of the dominators
	// read the references side by side, one on each core; the paths'
	// parents wait in a file from the search's end.
	q, err := newFifo(tmp)
	if err != nil {
		return nil, err
	}
	var parent []uint32
	walked := make(chan error, 1)
	go func() {
		var err error
		parent, err = shortestPaths(g, q)
		walked <- err
	}()
	var paths *u32File
	waited := false
	waitPaths := func() error {
		waited = true
		if err := <-walked; err != nil {
			return err
		}
		tmp.drop(q.f)
		var err error
		paths, err = tmp.spillU32("shortest paths", parent)
		parent = nil
		opts.mark("shortest paths")
		return err
	}
	a.t, err = dominators(ctx, g, tmp, parked.size, parked.cls, opts.keepEdges, opts.mark, waitPaths)
	if !waited {
		<-walked // failed before the search ended: the walk ends before the files close
	}
	if err != nil {
		return nil, err
	}
	if err := g.unpark(parked); err != nil {
		return nil, err
	}
	if a.parent, err = paths.view(); err != nil {
		return nil, err
	}
	var want map[uint32][]uint32
	if a.r, want, err = report(g, a.t, a.parent, h, opts.Top); err != nil {
		return nil, err
	}
	if !opts.keepEdges {
		// Pass 3 names steps by the ids and the index alone: the tree
		// (20 bytes a reachable node) goes back before it reads.
		a.t, a.parent = nil, nil
		release(g.nodes())
	}
	opts.mark("report")
	g.startPass3(want)
	if err := namePass(ctx, open, base, g); err != nil {
		return nil, err
	}
	a.r.nameSteps(g)
	opts.mark("pass 3")
	if !opts.keepEdges { // the views end with the files
		g.addr, g.cls, g.size, g.index = nil, nil, nil, addrIndex{}
	}
	return a, nil
}

// pass reads the dump once with the graph attached: pass 1 (numbering the
// objects beside the histogram, and reading their references when the
// graph is fused) or, with refs, a pass over the references alone.
func pass(ctx context.Context, open Opener, opts Options, g *graph, refs bool) (*Histogram, *scanner, error) {
	rc, err := open()
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	if refs { // no histogram extras
		opts.MaxStrings = -1
	}
	// The decoder reads up to a chunk at a time (larger arrays in pieces):
	// each buffer's room for the last chunk's cut record is a chunk too.
	ra := newReadAhead(rc, cmp.Or(max(opts.BufferSize, 0), readAheadChunk), readAheadChunk)
	defer ra.close() // before rc.Close
	s := newAheadScanner(ctx, ra, opts)
	s.g = g
	if refs {
		s.refs = true
		s.top.max = 0
	} else {
		s.nodes, s.refs = true, g.fused
		s.frames = newFrames()
		g.meta = s // the references need the classes read so far
		s.pipe = startPipe(g)
	}
	h, err := s.read()
	return h, s, err
}

// ReadFileRetained is ReadRetained over a file, gzip-compressed or not.
func ReadFileRetained(ctx context.Context, path string, opts RetainedOptions) (*Histogram, *Retained, error) {
	if fi, err := os.Stat(path); err == nil && opts.SizeHint == 0 {
		opts.SizeHint = fi.Size()
	}
	gzipped := false
	open := func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("hprof: %w", err)
		}
		r, gz, err := maybeGzip(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("hprof: %s: %w", filepath.Base(path), err)
		}
		gzipped = gz
		if !gz {
			return f, nil // at its start; an io.ReaderAt, so pass 3 seeks (namePass)
		}
		return readCloser{r, f}, nil
	}
	rc, err := open()
	if err != nil {
		return nil, nil, err
	}
	rc.Close()
	if gzipped {
		opts.SizeHint *= 6 // jcmd -gz dumps shrink about that much
	}
	h, r, err := ReadRetained(ctx, open, opts)
	if err != nil {
		return h, nil, fmt.Errorf("hprof: %s %w", filepath.Base(path), err)
	}
	return h, r, nil
}

type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }
