package hprof

import "testing"

func prims(sizes ...int) []layoutField {
	var fs []layoutField
	for _, s := range sizes {
		fs = append(fs, layoutField{size: s})
	}
	return fs
}

func refs(n, size int) []layoutField {
	var fs []layoutField
	for range n {
		fs = append(fs, layoutField{size: size, ref: true})
	}
	return fs
}

func TestComputeShape(t *testing.T) {
	object := computeShape(nil, 12, 4, nil, false)
	objectNoCCP := computeShape(nil, 16, 8, nil, false)
	byteBase := computeShape(object, 12, 4, prims(1), false)
	longByteBase := computeShape(object, 12, 4, prims(8, 1), false)
	tests := []struct {
		name      string
		super     *shape
		header    int
		ref       int
		fields    []layoutField
		contended bool
		want      int
	}{
		{"Object", nil, 12, 4, nil, false, 16},
		{"Object without compressed class pointers", nil, 16, 8, nil, false, 16},
		{"int fills the header gap", object, 12, 4, prims(4), false, 16},
		{"long after header gap", object, 12, 4, prims(8), false, 24},
		{"int fills the gap before a long", object, 12, 4, prims(8, 4), false, 24},
		{"Integer-like without compressed class pointers", objectNoCCP, 16, 8, prims(4), false, 24},
		{"one ref, compressed oops", object, 12, 4, refs(1, 4), false, 16},
		{"one ref, no compressed oops", object, 12, 8, refs(1, 8), false, 24},
		{"String in JDK 17 (int, 3 bytes, ref)", object, 12, 4, append(prims(4, 1, 1, 1), refs(1, 4)...), false, 24},
		{"subclass byte uses the super's padding", byteBase, 12, 4, prims(1), false, 16},
		{"subclass int after super's byte", byteBase, 12, 4, prims(4), false, 24},
		{"subclass short fills the hole after the super's byte", longByteBase, 12, 4, prims(2), false, 24},
		{"subclass int cannot fit the 3-byte hole", longByteBase, 12, 4, prims(4), false, 32},
		{"contended class pads both ends", object, 12, 4, prims(8), true, 12 + 128 + 4 + 8 + 128},
		{"contended field group", object, 12, 4, append(prims(4), layoutField{size: 8, group: 1}), false, 16 + 128 + 8 + 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := computeShape(tt.super, tt.header, tt.ref, tt.fields, tt.contended)
			want := alignUp(tt.want, 8)
			if got.size != want {
				t.Errorf("got size %d, want %d (fields %v)", got.size, want, got.fields)
			}
		})
	}
	if longByteBase.size != 24 {
		t.Errorf("long+byte base: got %d, want 24", longByteBase.size)
	}
}

func TestStaticBytes(t *testing.T) {
	tests := []struct {
		name  string
		ref   int
		refs  int
		prims []int
		want  int
	}{
		{"none", 4, 0, nil, 0},
		{"one ref", 4, 1, nil, 8},
		{"two refs", 4, 2, nil, 8},
		{"ref then long leaves a hole", 4, 1, []int{8}, 16},
		{"ints do not fill holes: appended after longs", 4, 1, []int{4, 8}, 24},
		{"wide refs", 8, 2, []int{1}, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := staticBytes(tt.ref, tt.refs, tt.prims); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestArrayBytes(t *testing.T) {
	coops := Layout{CompressedOops: true, CompressedClassPointers: true}
	noCCP := Layout{}
	noCCP22 := Layout{ElementAlignedArrays: true}
	compact := Layout{CompressedOops: true, CompressedClassPointers: true, CompactHeaders: true}
	tests := []struct {
		name string
		l    Layout
		es   int
		n    uint32
		want int64
	}{
		{"empty byte[]", coops, 1, 0, 16},
		{"byte[5]", coops, 1, 5, 24},
		{"Object[3] compressed", coops, 4, 3, 32},
		{"long[1]", coops, 8, 1, 24},
		{"byte[0] without ccp, JDK 17", noCCP, 1, 0, 24},
		{"byte[4] without ccp, JDK 22+", noCCP22, 1, 4, 24},
		{"byte[5] without ccp, JDK 22+", noCCP22, 1, 5, 32},
		{"long[1] without ccp, JDK 22+", noCCP22, 8, 1, 32},
		{"byte[4] compact headers", compact, 1, 4, 16},
		{"int[1] compact headers", compact, 4, 1, 16},
		{"long[1] compact headers", compact, 8, 1, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.ArrayBytes(tt.es, tt.n); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestExternalName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"java/lang/String", "java.lang.String"},
		{"[Ljava/lang/Object;", "[Ljava.lang.Object;"},
		{"[[I", "[[I"},
		{"Outer$Inner", "Outer$Inner"},
		{"Population$$Lambda+0x0000000078041218", "Population$$Lambda/0x0000000078041218"},
		{"a/b/C$$Lambda$14+0x00007fc4ac001838", "a.b.C$$Lambda$14/0x00007fc4ac001838"},
	}
	for _, tt := range tests {
		if got := externalName(tt.in); got != tt.want {
			t.Errorf("externalName(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
