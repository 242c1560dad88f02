package hprof

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ClassStat is one line of the class histogram.
type ClassStat struct {
	Class     string `json:"class"`
	Instances int64  `json:"instances"`
	Bytes     int64  `json:"bytes"`
}

// Histogram is what one pass over a dump yields.
type Histogram struct {
	Version        string        // "JAVA PROFILE 1.0.2"
	DumpTime       time.Time     // when the dump was written (its header); zero when the header says 0
	IDSize         int           // identifier size in bytes
	Layout         Layout        // object layout used for sizes
	LayoutEvidence string        // how the layout was chosen
	Classes        []ClassStat   // by bytes, largest first; fillers excluded
	Fillers        []ClassStat   // GC filler objects (dead space), not real classes
	Largest        []Object      // largest objects, biggest first
	Strings        StringSummary // duplicate strings (empty when disabled)
	Records        int64         // top-level records read
	BytesRead      int64         // dump bytes read (uncompressed)
	Truncated      bool          // the dump ends inside a record
	TruncatedAt    int64         // where the input ended, when Truncated
	UnsizedClasses int           // classes with instances but no CLASS DUMP (sized as bare headers)
	// GapCorrections counts classes whose computed size was larger than the
	// gap to the next object in the heap and was lowered to it: layout
	// rules this JVM applies that the replay does not know.
	GapCorrections int
}

// fillerClasses are what G1 (JDK 19+) writes over dead space; they are not
// application objects. Before JDK 19 fillers were plain int[] and cannot be
// told apart.
func isFiller(name string) bool {
	switch name {
	case "jdk.internal.vm.FillerObject", "[Ljdk.internal.vm.FillerElement;":
		return true
	}
	return false
}

// externalName turns an internal class name into the name the JVM prints
// (Klass::external_name): dots for slashes, and "/" before the address of a
// hidden class ("Foo$$Lambda+0x0123" -> "Foo$$Lambda/0x0123").
func externalName(internal string) string {
	b := []byte(internal)
	for i, c := range b {
		if c == '/' {
			b[i] = '.'
		}
	}
	if i := strings.LastIndex(internal, "+0x"); i >= 0 {
		b[i] = '/'
	}
	return string(b)
}

func (s *scanner) chooseLayout() (int, string) {
	best := -1
	for i, l := range s.cands {
		if !s.opts.Layout.allows(l) && !l.ThirtyTwoBit {
			continue
		}
		if best < 0 || s.score[i] > s.score[best] {
			best = i
		}
	}
	if best < 0 {
		return 0, "no candidate layout matches the options; using the default"
	}
	forced := s.opts.Layout.CompressedOops != nil || s.opts.Layout.CompressedClassPointers != nil
	ev := fmt.Sprintf("inferred: %d adjacent array pairs match this layout's sizes", s.score[best])
	if s.score[best] == 0 {
		ev = "no adjacent arrays to infer from; default layout"
	}
	if forced {
		ev = "set by options; " + ev
	}
	return best, ev
}

func (s *scanner) className(id uint64) string {
	if n, ok := s.loadNames[id]; ok {
		if name, ok := s.utf8[n]; ok {
			return externalName(name)
		}
	}
	return fmt.Sprintf("<unknown class 0x%x>", id)
}

// sizer computes instance sizes from CLASS DUMP records, memoised per class.
type sizer struct {
	s      *scanner
	l      Layout
	shapes map[uint64]*shape
	depth  int
	// trustGaps: identifiers are addresses (the layout matched most
	// adjacent arrays), so gaps between neighbours bound object sizes.
	trustGaps bool
	corrected int
}

func (z *sizer) shape(id uint64) *shape {
	if sh, ok := z.shapes[id]; ok {
		return sh
	}
	c := z.s.classes[id]
	if c == nil || !c.dumped || z.depth > 256 {
		return nil
	}
	z.depth++
	var super *shape
	if c.superID != 0 {
		super = z.shape(c.superID)
	}
	z.depth--
	name := z.s.className(id)
	spec := contendedFields(name)
	if spec != nil && spec.unless != "" && z.declares(c, spec.unless) {
		spec = nil
	}
	groups := map[string]int{}
	var fields []layoutField
	for _, f := range c.fields {
		lf := layoutField{size: typeSize(f.typ, 8), ref: f.typ == typeObject}
		if lf.ref {
			lf.size = z.l.RefBytes()
		}
		if spec != nil {
			if g, ok := spec.groups[z.s.utf8[f.nameID]]; ok {
				lf.group = -1
				if g != "" {
					if _, ok := groups[g]; !ok {
						groups[g] = len(groups) + 1
					}
					lf.group = groups[g]
				}
			}
		}
		fields = append(fields, lf)
	}
	for _, f := range injectedFields(name) {
		if z.declares(c, f.name) || (f.when != "" && !z.declares(c, f.when)) || (f.unless != "" && z.declares(c, f.unless)) {
			continue // declared in Java, or not injected by this JDK
		}
		lf := layoutField{size: typeSize(f.typ, 8), ref: f.typ == typeObject}
		if lf.ref {
			lf.size = z.l.RefBytes()
		}
		fields = append(fields, lf)
	}
	sh := computeShape(super, z.l.HeaderBytes(), z.l.RefBytes(), fields, spec != nil && spec.class)
	if z.trustGaps && c.minGap > 0 && c.minGap < int64(sh.size) {
		// Two objects cannot overlap: the layout rules missed something
		// this JVM does (a JDK-specific injected or @Contended field).
		// The smallest observed gap is the best size left.
		sh.size = int(c.minGap)
		z.corrected++
	}
	z.shapes[id] = sh
	return sh
}

func (z *sizer) declares(c *classInfo, field string) bool {
	for _, f := range c.fields {
		if z.s.utf8[f.nameID] == field {
			return true
		}
	}
	return false
}

// result assembles the histogram once every record has been read.
func (s *scanner) result() *Histogram {
	li, ev := s.chooseLayout()
	l := s.cands[li]
	h := &Histogram{Version: s.version, DumpTime: dumpTime(s.dumpTime), IDSize: s.d.idSize, Layout: l, LayoutEvidence: ev, Records: s.records}
	z := &sizer{s: s, l: l, shapes: map[uint64]*shape{}, trustGaps: s.arrayObs > 0 && s.score[li]*2 > s.arrayObs}
	byName := map[string]*ClassStat{}
	stat := func(name string) *ClassStat {
		st := byName[name]
		if st == nil {
			st = &ClassStat{Class: name}
			byName[name] = st
		}
		return st
	}
	var classSize int64 = int64(alignUp(l.HeaderBytes(), objectAlignment))
	for id, c := range s.classes {
		if c.dumped && s.className(id) == "java.lang.Class" {
			if sh := z.shape(id); sh != nil {
				classSize = int64(sh.size)
			}
		}
	}
	ids := make([]uint64, 0, len(s.classes))
	for id := range s.classes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := s.classes[id]
		name := s.className(id)
		if c.instances > 0 {
			st := stat(name)
			st.Instances += c.instances
			size := classSize
			if name != "java.lang.Class" {
				if sh := z.shape(id); sh != nil {
					size = int64(sh.size)
				} else {
					size = int64(alignUp(l.HeaderBytes(), objectAlignment))
					h.UnsizedClasses++
				}
			}
			st.Bytes += c.instances * size
		}
		if c.arrays > 0 {
			st := stat(name)
			st.Instances += c.arrays
			st.Bytes += c.arrayBytes[li]
		}
		if c.dumped {
			st := stat("java.lang.Class")
			st.Instances++
			st.Bytes += classSize
			if !strings.HasPrefix(name, "[") {
				st.Bytes += int64(staticBytes(l.RefBytes(), c.staticRefs, c.staticPrims))
			}
		}
	}
	for t, p := range s.prims {
		if p.count > 0 {
			st := stat(primArrayName(uint64(t)))
			st.Instances += p.count
			st.Bytes += p.bytes[li]
		}
	}
	for _, st := range byName {
		if st.Instances == 0 {
			continue
		}
		if isFiller(st.Class) {
			h.Fillers = append(h.Fillers, *st)
		} else {
			h.Classes = append(h.Classes, *st)
		}
	}
	SortClasses(h.Classes)
	SortClasses(h.Fillers)
	h.Largest = s.largest(z, l, li)
	if s.g != nil && s.nodes {
		s.g.setSizes(z, l, func(id uint64) int64 {
			c := s.classes[id]
			if c == nil || strings.HasPrefix(s.className(id), "[") {
				return classSize
			}
			return classSize + int64(staticBytes(l.RefBytes(), c.staticRefs, c.staticPrims))
		})
	}
	h.GapCorrections = z.corrected
	if z.corrected > 0 {
		h.LayoutEvidence += fmt.Sprintf("; %d class sizes lowered to the gap between adjacent objects", z.corrected)
	}
	if s.strings != nil {
		h.Strings = s.strings.summary(l, s.opts.Top)
	}
	return h
}

func (s *scanner) largest(z *sizer, l Layout, li int) []Object {
	var objs []Object
	for _, e := range s.top.h {
		o := Object{ID: e.addr, Length: e.length}
		switch e.kind {
		case kindInstance:
			o.Class = s.className(e.class)
			if sh := z.shape(e.class); sh != nil {
				o.Bytes = int64(sh.size)
			}
		case kindObjArray:
			o.Class = s.className(e.class)
			o.Bytes = l.ArrayBytes(l.RefBytes(), uint32(e.length))
		case kindPrimArray:
			o.Class = primArrayName(e.class)
			o.Bytes = l.ArrayBytes(typeSize(byte(e.class), 8), uint32(e.length))
		}
		if isFiller(o.Class) {
			continue
		}
		objs = append(objs, o)
	}
	sortObjects(objs)
	return objs[:min(len(objs), s.opts.Top)]
}

// SortClasses orders a histogram as jmap -histo does: bytes, then
// instances, largest first, then by name.
func SortClasses(cs []ClassStat) {
	slices.SortFunc(cs, func(a, b ClassStat) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Instances, a.Instances); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
}

// Totals sums instances and bytes.
func Totals(cs []ClassStat) (instances, bytes int64) {
	for _, c := range cs {
		instances += c.Instances
		bytes += c.Bytes
	}
	return instances, bytes
}

func dumpTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
