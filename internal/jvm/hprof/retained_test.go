package hprof

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"testing"
)

// Ids of the retention dump.
const (
	rdObject = 0x1000 + iota*0x10
	rdNode
	rdHolder
	rdRef
	rdObjArr
)

// retentionDump is a small heap with a known dominator tree (compressed
// oops and class pointers: a Node with two references is 24 bytes):
//
//	JNI global → arr Object[2] = {n1, n3}
//	n1.next = n2, n1.data = b1 byte[100];  n3.next = n2;  n2.data = b2 byte[1000]
//	sticky class Holder .static INSTANCE = w java.lang.ref.Reference
//	w.referent = n4 (weak only), n4.data = b3 byte[8]
//	g1: a Node nothing reaches
func retentionDump(idSize int) []byte { return buildRetentionDump(idSize, false) }

// buildRetentionDump writes the retention dump, its class dumps after the
// objects with classesLast (HotSpot writes them first).
func buildRetentionDump(idSize int, classesLast bool) []byte {
	b := newDump("JAVA PROFILE 1.0.2", idSize)
	names := map[uint64]string{0x8001: "java/lang/Object", 0x8002: "Node", 0x8003: "Holder", 0x8004: "java/lang/ref/Reference",
		0x8005: "[Ljava/lang/Object;", 0x9001: "next", 0x9002: "data", 0x9003: "INSTANCE", 0x9004: "referent", 0x9005: "queue"}
	for id := uint64(0x8001); id <= 0x8005; id++ {
		b.utf8(id, names[id])
	}
	for id := uint64(0x9001); id <= 0x9005; id++ {
		b.utf8(id, names[id])
	}
	for i, c := range []uint64{rdObject, rdNode, rdHolder, rdRef, rdObjArr} {
		b.loadClass(uint32(i+1), c, 0x8001+uint64(i))
	}
	const (
		arr = 0x7000 + 8*iota
		n1
		n2
		n3
		n4
		w
		g1
		b1
		b2
		b3
	)
	b.root(subRootJNIGlobal, arr, idSize)
	b.root(subRootStickyClass, rdHolder, 0)
	classes := func() {
		b.classDump(rdObject, 0, nil, nil)
		b.classDump(rdNode, rdObject, nil, []fieldSpec{{0x9001, typeObject}, {0x9002, typeObject}})
		b.classDumpValues(rdHolder, rdObject, []fieldSpec{{0x9003, typeObject}}, []uint64{w}, nil)
		b.classDump(rdRef, rdObject, nil, []fieldSpec{{0x9004, typeObject}, {0x9005, typeObject}})
		b.classDump(rdObjArr, rdObject, nil, nil)
	}
	if !classesLast {
		classes()
	}
	refs := func(ids ...uint64) []byte {
		out := make([]byte, 0, len(ids)*idSize)
		for _, id := range ids {
			if idSize == 4 {
				out = binary.BigEndian.AppendUint32(out, uint32(id))
			} else {
				out = binary.BigEndian.AppendUint64(out, id)
			}
		}
		return out
	}
	b.objArray(arr, rdObjArr, n1, n3)
	b.instance(n1, rdNode, refs(n2, b1))
	b.instance(n2, rdNode, refs(0, b2))
	b.instance(n3, rdNode, refs(n2, 0))
	b.instance(n4, rdNode, refs(0, b3))
	b.instance(w, rdRef, refs(n4, 0))
	b.instance(g1, rdNode, refs(0, 0))
	b.primArray(b1, typeByte, make([]byte, 100))
	b.primArray(b2, typeByte, make([]byte, 1000))
	b.primArray(b3, typeByte, make([]byte, 8))
	if classesLast {
		classes()
	}
	return b.bytes()
}

func bytesOpener(data []byte) Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// TestRetainedSynthetic checks the retention dump in both identifier sizes,
// its references read in pass 1 (fused), in a pass of their own, and in a
// pass of their own because the classes come after the objects.
func TestRetainedSynthetic(t *testing.T) {
	for _, idSize := range []int{8, 4} {
		for _, m := range []struct {
			name                  string
			separate, classesLast bool
			wantSeparatePass      bool
		}{{"fused", false, false, false}, {"separate", true, false, true}, {"classes-last", false, true, true}} {
			t.Run(fmt.Sprintf("%d-byte ids/%s", idSize, m.name), func(t *testing.T) {
				dump := buildRetentionDump(idSize, m.classesLast)
				a, err := analyze(context.Background(), bytesOpener(dump), RetainedOptions{Top: 50, keepEdges: true, separateRefs: m.separate})
				if err != nil {
					t.Fatal(err)
				}
				if a.g.separatePass != m.wantSeparatePass {
					t.Errorf("references read in a pass of their own: %v, want %v", a.g.separatePass, m.wantSeparatePass)
				}
				checkRetentionDump(t, a, bytesOpener(dump))
			})
		}
	}
}

func checkRetentionDump(t *testing.T, a *analysis, open Opener) {
	g, r := a.g, a.r
	byID := map[uint64]Retainer{}
	for _, d := range r.Dominators {
		byID[d.ID] = d
	}
	retained := func(id uint64) int64 { return a.t.ret[a.t.pre[g.index.lookup(id)]] }
	// Sizes in the dump's layout (8-byte ids: compressed oops, a Node with
	// two references is 24 bytes; 4-byte ids: a 32-bit JVM, 16 bytes); a
	// class object without a java.lang.Class dump is a bare header plus its
	// static slots.
	l := a.h.Layout
	node := int64(alignUp(l.HeaderBytes()+2*l.RefBytes(), objectAlignment))
	ba := func(n uint32) int64 { return l.ArrayBytes(1, n) }
	mirror := int64(alignUp(l.HeaderBytes(), objectAlignment))
	for _, c := range []struct {
		name string
		id   uint64
		want int64
	}{
		{"n2 (held by n1 and n3)", 0x7010, node + ba(1000)},
		{"n1", 0x7008, node + ba(100)},
		{"n3", 0x7018, node},
		{"arr: both nodes, n2, and the Object[] class only it refers to", 0x7000,
			l.ArrayBytes(l.RefBytes(), 2) + (node + ba(100)) + node + (node + ba(1000)) + mirror},
		{"w: its weak referent n4 and the Reference class", 0x7028, node + (node + ba(8)) + mirror},
		{"class Holder: its static's tree", rdHolder, mirror + int64(staticBytes(l.RefBytes(), 1, nil)) + node + (node + ba(8)) + mirror},
	} {
		if got := retained(c.id); got != c.want {
			t.Errorf("%s: retains %d bytes, want %d", c.name, got, c.want)
		}
	}
	if d, ok := byID[0x7000]; !ok || d.Root != "JNI global" || d.Length != 2 {
		t.Errorf("arr: got %+v, want a top dominator rooted by a JNI global with length 2", d)
	}
	// Tree children name how their parent holds them, when it does so
	// directly: n2 is dominated by arr but held by n1 and n3.
	for _, c := range []struct {
		parent, child uint64
		field         string
	}{{0x7000, 0x7008, "[0]"}, {0x7000, 0x7018, "[1]"}, {0x7000, 0x7010, ""}, {rdHolder, 0x7028, "static INSTANCE"}} {
		kids := byID[c.parent].Children
		i := slices.IndexFunc(kids, func(x Retainer) bool { return x.ID == c.child })
		if i < 0 || kids[i].Field != c.field {
			t.Errorf("child %#x of %#x: got %+v, want it held by %q", c.child, c.parent, kids, c.field)
		}
	}
	if r.Unreachable != 1 || r.UnreachableBytes != node {
		t.Errorf("got %d unreachable objects (%d bytes), want g1 alone (%d)", r.Unreachable, r.UnreachableBytes, node)
	}
	var sum int64
	for _, c := range r.ByClass {
		sum += c.Retained
	}
	if sum != r.ReachableBytes {
		t.Errorf("top-level dominators retain %d bytes in all, want the reachable %d", sum, r.ReachableBytes)
	}

	// Paths: named fields and indexes, never through the weak referent.
	pathOf := func(id uint64) string {
		steps, root := namedPath(t, a, open, g.index.lookup(id))
		if steps == nil {
			return "none"
		}
		return "[" + root + "] " + pathString(steps)
	}
	for id, want := range map[uint64]string{
		0x7010: "[JNI global] [Ljava.lang.Object; .[0] → Node .next → Node",
		0x7028: "[system class] class Holder .static INSTANCE → java.lang.ref.Reference",
		0x7020: "none",                                                    // n4: only the weak referent reaches it
		0x7038: "[JNI global] [Ljava.lang.Object; .[0] → Node .data → [B", // b1
	} {
		if got := pathOf(id); got != want {
			t.Errorf("path to %#x: got %q, want %q", id, got, want)
		}
	}
}

// TestRetainedSuperclassAfterInstance is the fuzzer's find (CI, stop 26): a
// dumped class whose superclass is dumped only after an instance, the
// instance's record holding no field bytes. The fused pass saw the
// subclass's reference offsets, not yet its size, and read past the record;
// now it gives up the fused pass, and the pass of its own reads the record
// as too short for its class.
func TestRetainedSuperclassAfterInstance(t *testing.T) {
	for _, idSize := range []int{8, 4} {
		b := newDump("JAVA PROFILE 1.0.2", idSize)
		b.utf8(0x8001, "Sub")
		b.utf8(0x8002, "Super")
		b.utf8(0x9001, "next")
		b.loadClass(1, 0x5001, 0x8001)
		b.loadClass(2, 0x5002, 0x8002)
		b.classDump(0x5001, 0x5002, nil, []fieldSpec{{0x9001, typeObject}})
		b.root(subRootJNIGlobal, 0x7000, idSize)
		b.instance(0x7000, 0x5001, nil)
		b.classDump(0x5002, 0, nil, nil)
		dump := b.bytes()
		a, err := analyze(context.Background(), bytesOpener(dump), RetainedOptions{Top: 5})
		if err != nil {
			t.Fatalf("%d-byte ids: %v", idSize, err)
		}
		if !a.g.separatePass {
			t.Errorf("%d-byte ids: references read in the fused pass; want a pass of their own", idSize)
		}
		if a.r.Objects == 0 || a.r.Reachable == 0 {
			t.Errorf("%d-byte ids: got %d objects, %d reachable; want the rooted instance", idSize, a.r.Objects, a.r.Reachable)
		}
	}
}
