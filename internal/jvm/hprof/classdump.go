package hprof

import (
	"fmt"
	"strings"
)

// classDump reads a CLASS DUMP: the super class, the static fields (they
// size the class's java.lang.Class mirror) and the instance field types
// (they size its instances).
func (s *scanner) classDump() error {
	d := s.d
	idSize := d.idSize
	b, err := d.next(7*idSize + 8)
	if err != nil {
		return err
	}
	classID := getID(b, idSize)
	superID := getID(b[idSize+4:], idSize)
	c := s.class(classID)
	c.superID = superID
	c.dumped = true
	s.prevValid = false
	s.prevInst = nil
	edges := s.g != nil && s.refs
	if s.g != nil {
		if s.nodes {
			s.pipe.node(classID, 0, 0) // the graph's class 0: class objects
		}
		if edges && s.pipe == nil {
			if _, err := s.g.begin(); err != nil {
				return err
			}
			// Pass 3 names the references of a few nodes only: a lookup
			// for every class's would page in the ids.
			edges = !s.g.skipping()
		}
		if edges {
			s.edge(superID, func() string { return "<super>" })
			s.edge(getID(b[2*idSize+4:], idSize), func() string { return "<classloader>" })
		}
	}
	cp, err := d.u2()
	if err != nil {
		return err
	}
	for i := 0; i < int(cp); i++ {
		h, err := d.next(3)
		if err != nil {
			return err
		}
		sz := typeSize(h[2], idSize)
		if sz == 0 {
			return fmt.Errorf("constant pool entry %d: bad type %d", i, h[2])
		}
		if err := d.skip(int64(sz)); err != nil {
			return err
		}
	}
	statics, err := d.u2()
	if err != nil {
		return err
	}
	c.staticRefs, c.staticPrims = 0, c.staticPrims[:0]
	for i := 0; i < int(statics); i++ {
		h, err := d.next(idSize + 1)
		if err != nil {
			return err
		}
		t := h[idSize]
		sz := typeSize(t, idSize)
		if sz == 0 {
			return fmt.Errorf("static field %d: bad type %d", i, t)
		}
		if name := s.utf8[getID(h, idSize)]; strings.HasPrefix(name, "<") {
			// "<resolved_references>", "<init_lock>": the dumper's synthetic
			// statics exposing VM-held references, not mirror fields.
		} else if t == typeObject {
			c.staticRefs++
		} else {
			c.staticPrims = append(c.staticPrims, sz)
		}
		if edges && t == typeObject {
			nameID := getID(h, idSize)
			ref, err := d.id()
			if err != nil {
				return err
			}
			s.edge(ref, func() string { return "static " + s.utf8[nameID] })
			continue
		}
		if err := d.skip(int64(sz)); err != nil {
			return err
		}
	}
	fields, err := d.u2()
	if err != nil {
		return err
	}
	c.fields = c.fields[:0]
	for i := 0; i < int(fields); i++ {
		h, err := d.next(idSize + 1)
		if err != nil {
			return err
		}
		t := h[idSize]
		if typeSize(t, idSize) == 0 {
			return fmt.Errorf("instance field %d: bad type %d", i, t)
		}
		c.fields = append(c.fields, fieldDesc{getID(h, idSize), t})
	}
	if s.strings != nil && s.strings.classID == classID {
		s.strings.setFields(c.fields, s.utf8, idSize)
	}
	return nil
}
