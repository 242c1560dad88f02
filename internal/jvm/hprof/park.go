package hprof

// Between the reading of the references and the report, the phases that
// walk the graph need neither the object ids (8 bytes per node) nor the
// class indexes (4): they wait in temporary files, with the shortest-path
// parents once computed, and come back for the report.

// parked is what park wrote.
type parked struct {
	addr *u64File
	cls  *u32File
}

// park writes the ids and classes to temporary files and drops them and
// the id index (which holds slices of the ids).
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
	g.addr, g.cls, g.index = nil, nil, addrIndex{}
	return &parked{addr: addr, cls: cls}, nil
}

// unpark reads back what park wrote and rebuilds the id index.
func (g *graph) unpark(p *parked) error {
	var err error
	if g.addr, err = p.addr.load(); err != nil {
		return err
	}
	if g.cls, err = p.cls.load(); err != nil {
		return err
	}
	g.parkedNodes = 0
	g.buildIndex()
	return nil
}
