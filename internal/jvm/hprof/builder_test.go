package hprof

import (
	"bytes"
	"encoding/binary"
)

// dumpBuilder writes HPROF records the way HotSpot's heap dumper does, for
// tests that need exact control over the input.
type dumpBuilder struct {
	out     bytes.Buffer
	seg     bytes.Buffer
	idSize  int
	heapTag byte // HEAP DUMP (1.0.1) or HEAP DUMP SEGMENT (1.0.2)
}

type fieldSpec struct {
	name uint64
	typ  byte
}

func newDump(version string, idSize int) *dumpBuilder {
	b := &dumpBuilder{idSize: idSize, heapTag: tagHeapDumpSegment}
	if version == "JAVA PROFILE 1.0.1" {
		b.heapTag = tagHeapDump
	}
	b.out.WriteString(version)
	b.out.WriteByte(0)
	b.u4(&b.out, uint32(idSize))
	b.u8(&b.out, 1700000000000)
	return b
}

func (b *dumpBuilder) u1(w *bytes.Buffer, v byte)   { w.WriteByte(v) }
func (b *dumpBuilder) u2(w *bytes.Buffer, v uint16) { _ = binary.Write(w, binary.BigEndian, v) }
func (b *dumpBuilder) u4(w *bytes.Buffer, v uint32) { _ = binary.Write(w, binary.BigEndian, v) }
func (b *dumpBuilder) u8(w *bytes.Buffer, v uint64) { _ = binary.Write(w, binary.BigEndian, v) }

func (b *dumpBuilder) id(w *bytes.Buffer, v uint64) {
	if b.idSize == 4 {
		b.u4(w, uint32(v))
		return
	}
	b.u8(w, v)
}

func (b *dumpBuilder) record(tag byte, body []byte) {
	b.u1(&b.out, tag)
	b.u4(&b.out, 0)
	b.u4(&b.out, uint32(len(body)))
	b.out.Write(body)
}

func (b *dumpBuilder) utf8(id uint64, s string) {
	var w bytes.Buffer
	b.id(&w, id)
	w.WriteString(s)
	b.record(tagUTF8, w.Bytes())
}

func (b *dumpBuilder) loadClass(serial uint32, classID, nameID uint64) {
	var w bytes.Buffer
	b.u4(&w, serial)
	b.id(&w, classID)
	b.u4(&w, 0)
	b.id(&w, nameID)
	b.record(tagLoadClass, w.Bytes())
}

func (b *dumpBuilder) classDump(classID, superID uint64, statics, fields []fieldSpec) {
	b.classDumpValues(classID, superID, statics, nil, fields)
}

// classDumpValues is classDump with the statics' values (object ids or
// primitive bits; missing ones are zero).
func (b *dumpBuilder) classDumpValues(classID, superID uint64, statics []fieldSpec, values []uint64, fields []fieldSpec) {
	w := &b.seg
	b.u1(w, subClassDump)
	b.id(w, classID)
	b.u4(w, 0)
	b.id(w, superID)
	for range 5 {
		b.id(w, 0) // loader, signers, protection domain, reserved x2
	}
	size := 0
	for _, f := range fields {
		size += typeSize(f.typ, b.idSize)
	}
	b.u4(w, uint32(size))
	b.u2(w, 1) // one constant pool entry, as some dumps have
	b.u2(w, 1)
	b.u1(w, typeInt)
	b.u4(w, 7)
	b.u2(w, uint16(len(statics)))
	for i, f := range statics {
		b.id(w, f.name)
		b.u1(w, f.typ)
		if i < len(values) && f.typ == typeObject {
			b.id(w, values[i])
			continue
		}
		w.Write(make([]byte, typeSize(f.typ, b.idSize)))
	}
	b.u2(w, uint16(len(fields)))
	for _, f := range fields {
		b.id(w, f.name)
		b.u1(w, f.typ)
	}
}

func (b *dumpBuilder) root(tag byte, id uint64, extra int) {
	b.u1(&b.seg, tag)
	b.id(&b.seg, id)
	b.seg.Write(make([]byte, extra))
}

func (b *dumpBuilder) instance(id, classID uint64, data []byte) {
	w := &b.seg
	b.u1(w, subInstanceDump)
	b.id(w, id)
	b.u4(w, 0)
	b.id(w, classID)
	b.u4(w, uint32(len(data)))
	w.Write(data)
}

func (b *dumpBuilder) objArray(id, classID uint64, elems ...uint64) {
	w := &b.seg
	b.u1(w, subObjArrayDump)
	b.id(w, id)
	b.u4(w, 0)
	b.u4(w, uint32(len(elems)))
	b.id(w, classID)
	for _, e := range elems {
		b.id(w, e)
	}
}

func (b *dumpBuilder) primArray(id uint64, typ byte, data []byte) {
	w := &b.seg
	b.u1(w, subPrimArrayDump)
	b.id(w, id)
	b.u4(w, 0)
	b.u4(w, uint32(len(data)/typeSize(typ, 8)))
	b.u1(w, typ)
	w.Write(data)
}

// flush closes the current HEAP DUMP SEGMENT.
func (b *dumpBuilder) flush() {
	if b.seg.Len() > 0 {
		b.record(b.heapTag, b.seg.Bytes())
		b.seg.Reset()
	}
}

func (b *dumpBuilder) bytes() []byte {
	b.flush()
	b.record(tagHeapDumpEnd, nil)
	return b.out.Bytes()
}

// Class and name ids of the synthetic dump.
const (
	idObject   = 0x1000
	idString   = 0x1010
	idFoo      = 0x1020
	idObjArr   = 0x1030
	idBArr     = 0x1040
	idCleanRef = 0x1050
	nameValue  = 0x9001
	nameCoder  = 0x9002
	nameHash   = 0x9003
	nameA      = 0x9004
	nameB      = 0x9005
	nameC      = 0x9006
	nameStatic = 0x9007
	nameRR     = 0x9008
)

// syntheticDump is a small JDK-17-like heap with known contents (compressed
// oops and class pointers; objects at consecutive addresses): 3 Foo
// (32 bytes each), 4 Strings of which 3 share the value "dup" in separate
// arrays, an Object[5], an Object[0] and a CleanupTaskWeakReference.
func syntheticDump() []byte {
	return buildSynthetic("JAVA PROFILE 1.0.2", 8, 0x700000000)
}

// buildSynthetic writes the synthetic heap in a given format version and
// identifier size, with objects from address base on.
func buildSynthetic(version string, idSize int, base uint64) []byte {
	b := newDump(version, idSize)
	names := map[uint64]string{
		0x8001: "java/lang/Object", 0x8002: "java/lang/String", 0x8003: "Foo$Bar",
		0x8004: "[Ljava/lang/Object;", 0x8005: "[B", 0x8006: "org/apache/spark/CleanupTaskWeakReference",
		nameValue: "value", nameCoder: "coder", nameHash: "hash", nameA: "a", nameB: "b", nameC: "c",
		nameStatic: "COUNT", nameRR: "<resolved_references>",
	}
	for id := uint64(0x8001); id <= 0x8006; id++ {
		b.utf8(id, names[id])
	}
	for id := uint64(nameValue); id <= nameRR; id++ {
		b.utf8(id, names[id])
	}
	for i, c := range []uint64{idObject, idString, idFoo, idObjArr, idBArr, idCleanRef} {
		b.loadClass(uint32(i+1), c, 0x8001+uint64(i))
	}
	b.root(subRootStickyClass, idObject, 0)
	b.root(subRootJavaFrame, 0x5000, 8)
	b.root(subRootThreadObj, 0x5000, 8)
	b.root(subRootJNIGlobal, 0x5000, idSize)
	b.root(subHeapDumpInfo, 0x5000, 4)
	b.classDump(idObject, 0, nil, nil)
	b.classDump(idString, idObject, []fieldSpec{{nameRR, typeObject}}, []fieldSpec{{nameValue, typeObject}, {nameCoder, typeByte}, {nameHash, typeInt}})
	b.classDump(idFoo, idObject, []fieldSpec{{nameStatic, typeLong}}, []fieldSpec{{nameA, typeInt}, {nameB, typeLong}, {nameC, typeObject}})
	b.classDump(idObjArr, idObject, nil, nil)
	b.classDump(idBArr, idObject, nil, nil)
	b.classDump(idCleanRef, idObject, nil, nil)
	b.flush()

	addr := base
	foo := make([]byte, 4+8+idSize)
	for range 3 {
		b.instance(addr, idFoo, foo)
		addr += 32
	}
	str := func(value uint64) []byte {
		d := make([]byte, idSize+1+4)
		if idSize == 4 {
			binary.BigEndian.PutUint32(d, uint32(value))
		} else {
			binary.BigEndian.PutUint64(d, value)
		}
		return d
	}
	for _, v := range []string{"dup", "dup", "dup", "unique"} {
		arr := addr
		b.primArray(arr, typeByte, []byte(v))
		addr += uint64(alignUp(16+len(v), 8))
		b.instance(addr, idString, str(arr))
		addr += 24
	}
	b.objArray(addr, idObjArr, 0, 0, base, 0, 0)
	addr += 40
	b.objArray(addr, idObjArr)
	addr += 16
	b.instance(addr, idCleanRef, nil)
	b.flush()
	return b.bytes()
}

// syntheticWant is the histogram of syntheticDump: Foo 3 x 32; Strings
// 4 x 24; [B 3 x 24 + 1 x 24; Object[5] 40 + Object[0] 16; the cleanup
// reference 16; mirrors: 6 classes x Class size (unknown here, no
// java.lang.Class dump: 16) plus statics: Foo 8 (long), String 0 (the
// synthetic static is not a field).
var syntheticWant = map[string]ClassStat{
	"Foo$Bar":             {"Foo$Bar", 3, 96},
	"java.lang.String":    {"java.lang.String", 4, 96},
	"[B":                  {"[B", 4, 96},
	"[Ljava.lang.Object;": {"[Ljava.lang.Object;", 2, 56},
	"org.apache.spark.CleanupTaskWeakReference": {"org.apache.spark.CleanupTaskWeakReference", 1, 16},
	"java.lang.Class": {"java.lang.Class", 6, 6*16 + 8},
}
