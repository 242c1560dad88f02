package heapreport

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
)

const synthetic = "../jvm/hprof/testdata/synthetic.hprof"

// hostile is a report whose names carry markup, as class names and paths
// of a hostile dump can.
func hostile(t *testing.T) Report {
	t.Helper()
	h, err := hprof.ReadFile(context.Background(), synthetic, hprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := `<script>alert(1)</script>`
	r := &hprof.Retained{Objects: 3, Reachable: 2, ReachableBytes: 64,
		Dominators: []hprof.Retainer{{ID: 1, Class: x, Length: -1, Shallow: 16, Retained: 64, Root: x,
			Path:     []hprof.PathStep{{ID: 2, Class: x, Field: x}, {ID: 1, Class: x}},
			Children: []hprof.Retainer{{ID: 3, Class: x, Length: 2, Shallow: 24, Retained: 48}}}},
		ByClass: []hprof.RetainedClass{{Class: x, Objects: 1, Shallow: 16, Retained: 64}},
		Owners:  []hprof.Owner{{Owner: x, Objects: 1, Retained: 64, Note: x}},
		Largest: []hprof.LargeObject{{Class: x, Count: 1, Bytes: 24, IDs: []uint64{3}, Holder: hprof.Retainer{Class: x, Root: x}}},
	}
	return Report{Path: x + ".hprof", Hist: h, Retained: r}
}

func TestWriteHTMLEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, hostile(t), 10); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script") {
		t.Errorf("a class name's markup reached the page unescaped")
	}
	if !strings.Contains(b.String(), "&lt;script&gt;") {
		t.Errorf("the escaped class name is missing from the page")
	}
}

func TestWriteJSONRetainedOnlyWhenComputed(t *testing.T) {
	r := hostile(t)
	for _, c := range []struct {
		name string
		ret  *hprof.Retained
		want bool
	}{{"histogram only", nil, false}, {"with the tree", r.Retained, true}} {
		t.Run(c.name, func(t *testing.T) {
			r.Retained = c.ret
			var b bytes.Buffer
			if err := WriteJSON(&b, r); err != nil {
				t.Fatal(err)
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if _, got := doc["retained"]; got != c.want {
				t.Errorf("\"retained\" present: %v, want %v", got, c.want)
			}
			if string(doc["schema"]) != `"sparkdx.heap/v1"` {
				t.Errorf("schema %s", doc["schema"])
			}
		})
	}
}

func TestWriteTextPath(t *testing.T) {
	var b bytes.Buffer
	r := hostile(t)
	r.Retained.Dominators[0].Path = []hprof.PathStep{{Class: "class A", Field: "static INSTANCE"}, {Class: "B", Field: "next"}, {Class: "C"}}
	r.Retained.Dominators[0].Root = "system class"
	if err := WriteText(&b, r, 5); err != nil {
		t.Fatal(err)
	}
	if want := "path: [system class] class A .static INSTANCE → B .next → C"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
}
