package hprof

// Between the reading of the references and the report, the phases that
// walk the graph need neither the object ids (8 bytes per node) nor the
// class indexes (4): they wait in temporary files, with the shortest-path
// parents once computed, and come back for the report as views (the ids
// are read for a few nodes only; the id index keeps its buckets, about a
// byte per node, and finds the ids in the view).

// parked is what park wrote.
type parked struct {
	addr *u64File
	cls  *u32File
}

// park writes the ids and classes to temporary files and drops them; the
// id index lets go of its slices of the ids.
func (g *graph) park(tmp *tempFiles) (*parked, error) {
	addr, err := tmp.spillU64("object ids", g.addr)
	if err != nil {
		return nil, err
	}
	cls, err := tmp.spillU32("object classes", g.cls)
	if err != nil {
		return nil, err
	}
	g.parkedNodes = len(g.addr)
	for i := range g.index.runs {
		if r := &g.index.runs[i]; r.order == nil {
			r.n, r.ids = len(r.ids), nil
		}
	}
	g.addr, g.cls = nil, nil
	return &parked{addr: addr, cls: cls}, nil
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
	g.parkedNodes = 0
	for i := range g.index.runs {
		if r := &g.index.runs[i]; r.order == nil {
			r.ids = g.addr[r.first : int(r.first)+r.n]
		}
	}
	return nil
}
