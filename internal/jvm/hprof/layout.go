package hprof

import (
	"fmt"
	"math"
	"slices"
)

// Layout is the object layout of the JVM that wrote a dump. HPROF records
// carry field values with 8-byte identifiers whatever the JVM used, so the
// shallow sizes the JVM itself reports (GC.class_histogram) must be rebuilt
// from the layout: header size, reference size and where array elements
// start.
type Layout struct {
	CompressedOops          bool // 4-byte references
	CompressedClassPointers bool // 12-byte instance header
	CompactHeaders          bool // JDK 24+ -XX:+UseCompactObjectHeaders: 8-byte header
	ThirtyTwoBit            bool // a 32-bit JVM (4-byte identifiers): 8-byte header, 4-byte references
	// ElementAlignedArrays: array elements start right after the length,
	// aligned to the element size (JDK 22+); before, at the next 8-byte
	// boundary. Only matters without compressed class pointers.
	ElementAlignedArrays bool
}

// String names the layout with the JVM flags that produce it.
func (l Layout) String() string {
	if l.ThirtyTwoBit {
		return "32-bit JVM"
	}
	s := fmt.Sprintf("%sUseCompressedOops %sUseCompressedClassPointers", plus(l.CompressedOops), plus(l.CompressedClassPointers))
	if l.CompactHeaders {
		s += " +UseCompactObjectHeaders"
	}
	if l.ElementAlignedArrays {
		s += " (element-aligned arrays)"
	}
	return s
}

func plus(b bool) string {
	if b {
		return "+"
	}
	return "-"
}

// HeaderBytes is the instance header size: mark word plus class pointer.
func (l Layout) HeaderBytes() int {
	switch {
	case l.CompactHeaders, l.ThirtyTwoBit:
		return 8
	case l.CompressedClassPointers:
		return 12
	}
	return 16
}

// RefBytes is the size of a reference field or array element.
func (l Layout) RefBytes() int {
	if l.CompressedOops || l.ThirtyTwoBit {
		return 4
	}
	return 8
}

// arrayBase is the offset of element 0 for elements of elemSize bytes.
func (l Layout) arrayBase(elemSize int) int {
	end := l.HeaderBytes() + 4 // header then the 4-byte length
	if l.ElementAlignedArrays || l.CompactHeaders || l.ThirtyTwoBit {
		return alignUp(end, elemSize)
	}
	return alignUp(end, 8)
}

// ArrayBytes is the shallow size of an array of n elements of elemSize bytes.
func (l Layout) ArrayBytes(elemSize int, n uint32) int64 {
	return alignUp64(int64(l.arrayBase(elemSize))+int64(elemSize)*int64(n), objectAlignment)
}

const objectAlignment = 8

func alignUp(v, a int) int { return (v + a - 1) / a * a }

func alignUp64(v, a int64) int64 { return (v + a - 1) &^ (a - 1) } // a: a power of two

// candidateLayouts are the layouts inference chooses from for a dump with
// identifiers of idSize bytes, most common first (ties in the evidence go
// to the earlier one).
func candidateLayouts(idSize int) []Layout {
	if idSize == 4 {
		return []Layout{{ThirtyTwoBit: true}}
	}
	return []Layout{
		{CompressedOops: true, CompressedClassPointers: true},
		{CompressedOops: false, CompressedClassPointers: true},
		{CompressedOops: false, CompressedClassPointers: false},
		{CompressedOops: false, CompressedClassPointers: false, ElementAlignedArrays: true},
		{CompressedOops: true, CompressedClassPointers: false},
		{CompressedOops: true, CompressedClassPointers: false, ElementAlignedArrays: true},
		{CompressedOops: true, CompressedClassPointers: true, CompactHeaders: true},
		{CompressedOops: false, CompressedClassPointers: true, CompactHeaders: true},
	}
}

// LayoutChoice restricts inference: nil fields are inferred from the dump.
type LayoutChoice struct {
	CompressedOops          *bool
	CompressedClassPointers *bool
}

func (c LayoutChoice) allows(l Layout) bool {
	if c.CompressedOops != nil && *c.CompressedOops != l.CompressedOops {
		return false
	}
	if c.CompressedClassPointers != nil && *c.CompressedClassPointers != l.CompressedClassPointers {
		return false
	}
	return true
}

// span is an occupied range of an instance: a field, the header or padding.
type span struct{ off, size int }

// shape is a class's computed instance layout, kept for its subclasses.
type shape struct {
	fields    []span // instance fields of the class and its supers, by offset
	size      int    // instance size in bytes, aligned
	hasFields bool
	contended bool // the class or its fields carry @Contended
}

// layoutField is one instance field as the layout algorithm sees it.
type layoutField struct {
	size  int
	ref   bool
	group int // 0: not contended; -1: own anonymous group; >0: named group
}

const (
	blkEmpty = iota
	blkReserved
	blkField
	blkPadding
)

// contendedPadding is -XX:ContendedPaddingWidth's default.
const contendedPadding = 128

type lblock struct {
	off, size int
	kind      int
}

// fieldLayout replays HotSpot's FieldLayoutBuilder (JDK 15+): primitive
// fields largest first, then references, each into the smallest hole that
// fits (holes left by superclasses included), else appended; @Contended
// groups appended between padding.
type fieldLayout struct {
	blocks      []lblock // last block is the open-ended empty tail
	appendOnly  bool     // "start" is the last block: no hole filling
	lastSize    int
	lastAlign   int
	lastSuccess bool
}

func newFieldLayout(super *shape, header int) *fieldLayout {
	fl := &fieldLayout{}
	fl.blocks = append(fl.blocks, lblock{0, header, blkReserved})
	end := header
	fill := blkEmpty
	if super != nil && super.contended {
		fill = blkPadding
	}
	if super != nil {
		for _, f := range super.fields {
			if f.off > end {
				fl.blocks = append(fl.blocks, lblock{end, f.off - end, fill})
			}
			fl.blocks = append(fl.blocks, lblock{f.off, f.size, blkField})
			end = f.off + f.size
		}
		if super.contended {
			fl.blocks = append(fl.blocks, lblock{end, contendedPadding, blkPadding})
			end += contendedPadding
		}
		fl.appendOnly = super.contended && super.hasFields
	}
	fl.blocks = append(fl.blocks, lblock{end, math.MaxInt32, blkEmpty})
	return fl
}

func (fl *fieldLayout) last() int { return len(fl.blocks) - 1 }

func fits(b lblock, size, align int) bool {
	adj := 0
	if r := b.off % align; r != 0 {
		adj = align - r
	}
	return b.size >= size+adj
}

// add places each field of the list with HotSpot's best-fit search.
func (fl *fieldLayout) add(sizes []int, appendOnly bool) {
	for _, size := range sizes {
		align := size
		cand := -1
		switch {
		case appendOnly:
			cand = fl.last()
		case size == fl.lastSize && align == fl.lastAlign && !fl.lastSuccess:
			cand = fl.last()
		default:
			fl.lastSize, fl.lastAlign, fl.lastSuccess = size, align, true
			for i := fl.last() - 1; i > 0; i-- {
				b := fl.blocks[i]
				if b.kind == blkEmpty && fits(b, size, align) && (cand < 0 || b.size < fl.blocks[cand].size) {
					cand = i
				}
			}
			if cand < 0 {
				cand = fl.last()
				fl.lastSuccess = false
			}
		}
		fl.insertField(cand, size, align)
	}
}

func (fl *fieldLayout) insertField(slot, size, align int) {
	if r := fl.blocks[slot].off % align; r != 0 {
		slot = fl.insertBefore(slot, align-r, blkEmpty)
	}
	slot = fl.insertBefore(slot, size, blkField)
	if fl.blocks[slot].size == 0 {
		fl.blocks = append(fl.blocks[:slot], fl.blocks[slot+1:]...)
	}
}

// insertBefore carves size bytes off the front of the empty block at slot
// and returns the slot's new index.
func (fl *fieldLayout) insertBefore(slot, size, kind int) int {
	b := fl.blocks[slot]
	fl.blocks = append(fl.blocks, lblock{})
	copy(fl.blocks[slot+1:], fl.blocks[slot:])
	fl.blocks[slot] = lblock{b.off, size, kind}
	fl.blocks[slot+1] = lblock{b.off + size, b.size - size, b.kind}
	return slot + 1
}

// maxLayoutFields bounds the best-fit replay, quadratic in the number of
// fields; past it (only crafted or corrupt dumps get there) fields are
// simply appended.
const maxLayoutFields = 8192

// computeShape lays out a class's own instance fields after its super's.
func computeShape(super *shape, header, refSize int, fields []layoutField, classContended bool) *shape {
	if len(fields) > maxLayoutFields || (super != nil && len(super.fields) > maxLayoutFields) {
		return appendShape(super, header, fields)
	}
	fl := newFieldLayout(super, header)
	appendOnly := fl.appendOnly
	var prims []int
	var refs int
	groups := map[int]int{} // named group -> index in cgs
	var cgs [][]layoutField
	for _, f := range fields {
		switch {
		case f.group == 0:
			if f.ref {
				refs++
			} else {
				prims = append(prims, f.size)
			}
		case f.group < 0:
			cgs = append(cgs, []layoutField{f})
		default:
			i, ok := groups[f.group]
			if !ok {
				i = len(cgs)
				groups[f.group] = i
				cgs = append(cgs, nil)
			}
			cgs[i] = append(cgs[i], f)
		}
	}
	needTail := false
	if classContended {
		appendOnly = true
		fl.insertBefore(fl.last(), contendedPadding, blkPadding)
		needTail = true
	}
	sortDesc(prims)
	fl.add(prims, appendOnly)
	fl.add(repeat(refSize, refs), appendOnly)
	for _, g := range cgs {
		fl.insertBefore(fl.last(), contendedPadding, blkPadding)
		var gp []int
		var gr int
		for _, f := range g {
			if f.ref {
				gr++
			} else {
				gp = append(gp, f.size)
			}
		}
		sortDesc(gp)
		fl.add(gp, true)
		fl.add(repeat(refSize, gr), true)
		needTail = true
	}
	if needTail {
		fl.insertBefore(fl.last(), contendedPadding, blkPadding)
	}
	s := &shape{
		size:      alignUp(fl.blocks[fl.last()].off, objectAlignment),
		hasFields: len(fields) > 0 || (super != nil && super.hasFields),
		contended: classContended || len(cgs) > 0,
	}
	for _, b := range fl.blocks {
		if b.kind == blkField && b.off >= header {
			s.fields = append(s.fields, span{b.off, b.size})
		}
	}
	return s
}

// staticBytes is the size the static fields add to a class's mirror: the
// references first as one run, then primitives largest first, appended.
func staticBytes(refSize, refs int, prims []int) int {
	off := refs * refSize
	sorted := append([]int(nil), prims...)
	sortDesc(sorted)
	for _, p := range sorted {
		off = alignUp(off, p) + p
	}
	return alignUp(off, objectAlignment)
}

func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func sortDesc(s []int) {
	slices.SortFunc(s, func(a, b int) int { return b - a })
}

// appendShape is the linear fallback for absurd field counts: fields packed
// after the super's end, each aligned to its size.
func appendShape(super *shape, header int, fields []layoutField) *shape {
	end := header
	if super != nil && len(super.fields) > 0 {
		last := super.fields[len(super.fields)-1]
		end = last.off + last.size
	}
	for _, f := range fields {
		end = alignUp(end, f.size) + f.size
	}
	return &shape{size: alignUp(end, objectAlignment), hasFields: len(fields) > 0 || (super != nil && super.hasFields),
		fields: []span{{header, end - header}}}
}
