package hprof

// The scanner's side of the graph's reference pass: the records' bytes that
// the histogram skips are read for the references they hold.

// instanceEdges reads an instance's n field bytes for its references.
func (s *scanner) instanceEdges(classID uint64, n int64) error {
	if _, err := s.g.begin(); err != nil {
		return err
	}
	if n > int64(len(s.d.buf)) || s.g.skipping() {
		return s.d.skip(n) // nothing to name; or no class has fields this large: corrupt, kept without references
	}
	b, err := s.d.next(int(n))
	if err != nil {
		return err
	}
	if s.strings != nil && classID == s.strings.classID && s.strings.valueOff >= 0 {
		s.strings.addString(b, s.d.idSize) // pass 1 read the references: Strings are tracked here
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
	idSize := s.d.idSize
	per := len(s.d.buf) / idSize
	for done := 0; done < int(n); {
		k := min(int(n)-done, per)
		b, err := s.d.next(k * idSize)
		if err != nil {
			return err
		}
		s.g.arrayEdges(b, idSize, done)
		done += k
	}
	return nil
}
