package hprof

// Between the reading of the references and the report, the phases that
// walk the graph need neither the object ids (8 bytes per node) nor the
// class indexes and shallow sizes (4 each): they wait in temporary files, with the shortest-path
// parents once computed, and come back for the report as views (the ids
// are read for a few nodes only; the id index keeps its buckets, about a
// byte per node, and finds the ids in the view).

// parked is what the graph put aside.
type parked struct {
	addr    *u64File
	cls     *u32File
	size    *u32File
	buckets *u32File // the id index's buckets, run after run
	ranks   *u64File // and its rank indexes
}

// parkAttrs writes the classes and shallow sizes to temporary files and
// drops them: from pass 1's end to the report nothing but the retained
// sizes' sum (which streams the sizes) reads them.
func (g *graph) parkAttrs(tmp *tempFiles) (*parked, error) {
	cls, err := tmp.spillU32("object classes", g.cls)
	if err != nil {
		return nil, err
	}
	size, err := tmp.spillU32("shallow sizes", g.size)
	if err != nil {
		return nil, err
	}
	g.cls, g.size = nil, nil
	return &parked{cls: cls, size: size}, nil
}

// parkIDs writes the ids to a temporary file once the references are
// resolved and drops them; the id index lets go of its slices of the ids,
// and its buckets (about a byte per node) wait in a file too.
func (g *graph) parkIDs(tmp *tempFiles, p *parked) error {
	addr, err := tmp.spillU64("object ids", g.addr)
	if err != nil {
		return err
	}
	bw, err := newArrayWriter[uint32](tmp, "id index buckets")
	if err != nil {
		return err
	}
	rw, err := newArrayWriter[uint64](tmp, "id index ranks")
	if err != nil {
		return err
	}
	g.parkedNodes = len(g.addr)
	for i := range g.index.runs {
		r := &g.index.runs[i]
		if r.order == nil {
			r.n, r.ids = len(r.ids), nil
		}
		if r.ranked {
			r.parkedAt, r.parked = int(rw.n), len(r.rank)
			rw.putAll(r.rank)
		} else {
			r.parkedAt, r.parked = int(bw.n), len(r.bucket)
			bw.putAll(r.bucket)
		}
		r.bucket, r.rank = nil, nil
	}
	if p.buckets, err = bw.finish(); err != nil {
		return err
	}
	if p.ranks, err = rw.finish(); err != nil {
		return err
	}
	g.addr = nil
	p.addr = addr
	return nil
}

// unpark maps back what park wrote and points the id index at the ids.
func (g *graph) unpark(p *parked) error {
	var err error
	if g.addr, err = p.addr.view(); err != nil {
		return err
	}
	if g.cls, err = p.cls.view(); err != nil {
		return err
	}
	if g.size, err = p.size.view(); err != nil {
		return err
	}
	buckets, err := p.buckets.view()
	if err != nil {
		return err
	}
	ranks, err := p.ranks.view()
	if err != nil {
		return err
	}
	g.parkedNodes = 0
	for i := range g.index.runs {
		r := &g.index.runs[i]
		if r.order == nil {
			r.ids = g.addr[r.first : int(r.first)+r.n]
		}
		if r.ranked {
			r.rank = ranks[r.parkedAt : r.parkedAt+r.parked]
		} else {
			r.bucket = buckets[r.parkedAt : r.parkedAt+r.parked]
		}
	}
	return nil
}
