package hprof

// The scanner's side of the graph's reference pass: the records' bytes that
// the histogram skips are read for the references they hold.

// instanceEdges reads an instance's n field bytes for its references.
func (s *scanner) instanceEdges(classID uint64, n int64) error {
	if _, err := s.g.begin(); err != nil {
		return err
	}
	if n > int64(s.d.max) || s.g.skipping() {
		return s.d.skip(n) // nothing to name; or no class has fields this large: corrupt, kept without references
	}
	b, err := s.d.next(int(n))
	if err != nil {
		return err
	}
	s.g.instanceEdges(classID, b, s.d.idSize)
	return nil
}

// arrayEdges reads an object array's n elements, whole identifiers per read.
func (s *scanner) arrayEdges(classID uint64, n uint32) error {
	if _, err := s.g.begin(); err != nil {
		return err
	}
	s.g.arrayLength(n)
	if s.g.skipping() {
		return s.d.skip(int64(n) * int64(s.d.idSize))
	}
	s.g.name(s.g.edge(classID), func() string { return "<class>" })
	return s.elements(n, func(b []byte, first int) { s.g.arrayEdges(b, s.d.idSize, first) })
}

// elements reads an object array's n elements, whole identifiers per
// read, and passes each piece to fn with the index of its first element.
func (s *scanner) elements(n uint32, fn func(b []byte, first int)) error {
	idSize := s.d.idSize
	per := s.d.max / idSize
	for done := 0; done < int(n); {
		k := min(int(n)-done, per)
		b, err := s.d.next(k * idSize)
		if err != nil {
			return err
		}
		fn(b, done)
		done += k
	}
	return nil
}

// edge adds a reference of the object being read; pass 3 names it.
func (s *scanner) edge(id uint64, name func() string) {
	if s.pipe != nil {
		if !s.g.fusedFailed {
			s.pipe.ref(id)
		}
		return
	}
	s.g.name(s.g.edge(id), name)
}

// pipeInstanceRefs hands over an instance's references in pass 1 (fused):
// the class, then its reference fields'.
func (s *scanner) pipeInstanceRefs(classID uint64, n int64) error {
	if n > int64(s.d.max) {
		return s.d.skip(n) // no class has fields this large: corrupt, kept without references
	}
	b, err := s.d.next(int(n))
	if err != nil {
		return err
	}
	if s.strings != nil && classID == s.strings.classID && s.strings.valueOff >= 0 {
		s.strings.addString(b, s.d.idSize)
	}
	g := s.g
	rs := g.refShape(classID)
	if g.fusedFailed || rs.size > len(b) {
		return nil // the class's fields do not fit its own record: no references trusted
	}
	p := s.pipe
	p.ref(classID)
	for _, off := range rs.offsets {
		id := getID(b[off:], s.d.idSize)
		p.ref(id)
		if off == rs.weak && id != 0 {
			g.weakRaw[p.next-1] = id
		}
	}
	return nil
}

// pipeArrayRefs hands over an object array's references in pass 1
// (fused): the class, then the elements', whole identifiers per read.
func (s *scanner) pipeArrayRefs(classID uint64, n uint32) error {
	idSize := s.d.idSize
	if s.g.fusedFailed {
		return s.d.skip(int64(n) * int64(idSize))
	}
	s.pipe.ref(classID)
	return s.elements(n, func(b []byte, _ int) { s.pipe.refsFrom(b, idSize) })
}
