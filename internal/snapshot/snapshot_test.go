package snapshot

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// node is a graph with every kind the codec supports, unexported fields,
// shared pointers and cycles.
type node struct {
	ID       int
	name     string
	Next     *node
	peers    map[string]*node
	Kids     []*node
	Seen     map[int]struct{}
	Pairs    [][2]string
	Raw      []byte
	F32      float32
	F64      float64
	U8       uint8
	I16      int16
	On       bool
	Opt      *int
	Inline   leaf
	leafPtr  *leaf
	leafPtr2 *leaf
	Empty    struct{}
	Nothing  []struct{}
}

type leaf struct {
	Vals []int64
	m    map[int64]float64
}

func sample() *node {
	seven := 7
	shared := &leaf{Vals: []int64{-1, 0, 1 << 60}, m: map[int64]float64{3: math.Inf(-1)}}
	a := &node{ID: 1, name: "a", Seen: map[int]struct{}{}, Raw: []byte{}, F32: -1.5, F64: math.NaN(),
		U8: 255, I16: -32768, On: true, Opt: &seven, Pairs: [][2]string{{"k", "v"}, {"", "<script>"}},
		leafPtr: shared, leafPtr2: shared, Nothing: make([]struct{}, 3)}
	b := &node{ID: 2, name: "b", Seen: map[int]struct{}{4: {}, 5: {}}, leafPtr: shared}
	a.Next, b.Next = b, a // a cycle
	a.Kids = []*node{b, a, nil}
	a.peers = map[string]*node{"b": b, "self": a}
	b.peers = map[string]*node{}
	return a
}

func TestRoundTrip(t *testing.T) {
	in := sample()
	data, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out node
	if err := Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	// DeepEqual treats NaN as unequal to itself: compare it apart.
	if !math.IsNaN(out.F64) {
		t.Errorf("F64 = %v, want NaN", out.F64)
	}
	in.F64, out.F64 = 0, 0
	if !reflect.DeepEqual(in, &out) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", &out, in)
	}
	// Identity: the graph's shared pointers are shared again.
	b := out.Next
	switch {
	case out.Kids[0] != b || out.peers["b"] != b:
		t.Errorf("b decoded more than once")
	case out.leafPtr != out.leafPtr2 || b.leafPtr != out.leafPtr:
		t.Errorf("shared leaf decoded more than once")
	case out.Seen == nil || b.peers == nil || out.Raw == nil:
		t.Errorf("empty maps or slices decoded as nil")
	case out.Kids[2] != nil || b.Kids != nil:
		t.Errorf("nil pointers or slices decoded as non-nil")
	}
	// The cycle through the root: the root is the pointer given to Unmarshal.
	if out.Kids[1] != &out || out.peers["self"] != &out || b.Next != &out {
		t.Errorf("cycle through the root not kept")
	}
}

func TestCutAndCorruptInputFail(t *testing.T) {
	data, err := Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		var out node
		if err := Unmarshal(data[:n], &out); err == nil {
			t.Fatalf("Unmarshal of the first %d of %d bytes: no error", n, len(data))
		} else if n > 16 && !strings.Contains(err.Error(), "offset ") {
			t.Fatalf("cut at %d: error %q does not name an offset", n, err)
		}
	}
	var out node
	if err := Unmarshal(append(data, 0), &out); err == nil || !strings.Contains(err.Error(), "1 bytes after") {
		t.Errorf("trailing byte: got %v, want an error naming it", err)
	}
}

func TestSchemaChangeIsRefused(t *testing.T) {
	data, err := Marshal(&leaf{Vals: []int64{1}})
	if err != nil {
		t.Fatal(err)
	}
	type leaf2 struct { // leaf with one field more
		Vals []int64
		m    map[int64]float64
		More int
	}
	var out leaf2
	if err := Unmarshal(data, &out); !errors.Is(err, ErrSchema) {
		t.Errorf("got %v, want ErrSchema", err)
	}
	type renamed struct {
		Values []int64
		m      map[int64]float64
	}
	var out2 renamed
	if err := Unmarshal(data, &out2); !errors.Is(err, ErrSchema) {
		t.Errorf("renamed field: got %v, want ErrSchema", err)
	}
}

func TestUnsupportedKinds(t *testing.T) {
	type withErr struct{ Err error }
	type withFunc struct{ f func() }
	type withChan struct{ C []chan int }
	for _, v := range []any{&withErr{}, &withFunc{}, &withChan{}} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("Marshal(%T): no error", v)
		}
	}
	if _, err := Marshal(leaf{}); err == nil {
		t.Errorf("Marshal of a non-pointer: no error")
	}
}

func FuzzUnmarshal(f *testing.F) {
	data, err := Marshal(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		var out node
		if Unmarshal(data, &out) != nil {
			return
		}
		// What decodes must encode and decode to the same graph.
		again, err := Marshal(&out)
		if err != nil {
			t.Fatal(err)
		}
		var out2 node
		if err := Unmarshal(again, &out2); err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		if !hasNaN(&out) && !reflect.DeepEqual(&out, &out2) {
			t.Fatalf("re-encoded value differs")
		}
	})
}

// hasNaN says whether a float field or a leaf map holds a NaN, which
// DeepEqual never finds equal to itself.
func hasNaN(n *node) bool {
	seen := map[*node]bool{}
	var walk func(n *node) bool
	leafNaN := func(l *leaf) bool {
		if l == nil {
			return false
		}
		for k, v := range l.m {
			if math.IsNaN(v) || math.IsNaN(float64(k)) {
				return true
			}
		}
		return false
	}
	walk = func(n *node) bool {
		if n == nil || seen[n] {
			return false
		}
		seen[n] = true
		if math.IsNaN(float64(n.F32)) || math.IsNaN(n.F64) || leafNaN(n.leafPtr) || leafNaN(n.leafPtr2) || leafNaN(&n.Inline) {
			return true
		}
		if walk(n.Next) {
			return true
		}
		for _, k := range n.Kids {
			if walk(k) {
				return true
			}
		}
		for _, p := range n.peers {
			if walk(p) {
				return true
			}
		}
		return false
	}
	return walk(n)
}
