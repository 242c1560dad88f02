package hprof

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// Retention's shape (testdata/Retention.java arguments).
const (
	retChain      = 1000
	retPayload    = 1000
	retMapEntries = 100
	retMapValue   = 10_000
	retTracked    = 200
)

func fileOpener(path string) Opener {
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

// namedPath is a node's shortest strong path with its references named by
// a pass of their own.
func namedPath(t *testing.T, a *analysis, open Opener, v uint32) ([]PathStep, string) {
	t.Helper()
	want := map[uint32][]uint32{}
	steps, root := a.g.path(a.parent, v, want)
	a.g.startPass3(want)
	if _, _, err := pass(context.Background(), open, Options{}, a.g, true); err != nil {
		t.Fatal(err)
	}
	x := Retainer{Path: steps}
	r := &Retained{Dominators: []Retainer{x}}
	r.nameSteps(a.g)
	return r.Dominators[0].Path, root
}

func pathString(steps []PathStep) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "%s", s.Class)
		if s.Field != "" {
			fmt.Fprintf(&b, " .%s → ", s.Field)
		}
	}
	return b.String()
}

// nodesOf lists the nodes whose class name is name.
func nodesOf(g *graph, name string) []uint32 {
	var out []uint32
	for v := 1; v < g.nodes(); v++ {
		if g.className(uint32(v)) == name {
			out = append(out, uint32(v))
		}
	}
	return out
}

func TestRetainedMatchesKnownGraph(t *testing.T) {
	sparktest.Live(t)
	for _, j := range jdks(t) {
		t.Run(j.name, func(t *testing.T) {
			p := startProgram(t, j, "Retention", []string{fmt.Sprint(retChain), fmt.Sprint(retPayload),
				fmt.Sprint(retMapEntries), fmt.Sprint(retMapValue), fmt.Sprint(retTracked)})
			dump := filepath.Join(t.TempDir(), "retention.hprof")
			p.jcmd(t, "GC.heap_dump", dump) // live objects only: a full GC first
			open := fileOpener(dump)
			a, err := analyze(context.Background(), open, RetainedOptions{Top: 20, keepEdges: true})
			if err != nil {
				t.Fatal(err)
			}
			g, tree, h := a.g, a.t, a.h
			if g.separatePass {
				t.Errorf("a HotSpot dump's references were read in a pass of their own: pass 1 should have read them")
			}
			// The same graph and tree when the references get a pass of their own.
			b, err := analyze(context.Background(), open, RetainedOptions{Top: 20, keepEdges: true, separateRefs: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.g.first, g.first) || !slices.Equal(b.g.to, g.to) || !slices.Equal(b.t.ret, tree.ret) || b.g.missing != g.missing ||
				!slices.Equal(b.g.roots, g.roots) || !maps.Equal(b.g.weak, g.weak) || !maps.Equal(b.g.rootFrame, g.rootFrame) {
				t.Errorf("references read in pass 1 and in a pass of their own differ: %d/%d references, %d/%d missing",
					len(g.to), len(b.g.to), g.missing, b.g.missing)
			}
			t.Logf("%d objects, %d references, %d roots, %d reachable, %d unreachable (%d bytes), %d missing references",
				a.r.Objects, a.r.References, a.r.Roots, a.r.Reachable, a.r.Unreachable, a.r.UnreachableBytes, a.r.MissingRefs)
			if a.r.Unreachable*20 > a.r.Objects {
				t.Errorf("%d of %d objects unreachable from the dump's roots after a full GC, want under 5%%", a.r.Unreachable, a.r.Objects)
			}
			_, total := Totals(h.Classes)
			if a.r.ReachableBytes+a.r.UnreachableBytes > total+int64(len(nodesOf(g, "class java.lang.Class")))*64 || a.r.ReachableBytes*10 < total*9 {
				t.Errorf("reachable %d + unreachable %d bytes, want about the histogram's %d", a.r.ReachableBytes, a.r.UnreachableBytes, total)
			}
			ret := func(v uint32) int64 { return tree.ret[tree.pre[v]] }

			// The chain: held by the static, its head retains every node and payload.
			var mirror uint32
			if ms := nodesOf(g, "class Retention"); len(ms) == 1 {
				mirror = ms[0]
			} else {
				t.Fatalf("got %d class objects for Retention, want 1", len(ms))
			}
			var head uint32
			for _, w := range g.succ(mirror) {
				if g.className(w) == "Retention$Node" {
					head = w
				}
			}
			if head == 0 {
				t.Fatal("class Retention holds no Retention$Node: static field references not read")
			}
			st := histMap(h)["Retention$Node"]
			if st.Instances != retChain {
				t.Fatalf("got %d Retention$Node, want %d", st.Instances, retChain)
			}
			wantChain := retChain * (st.Bytes/st.Instances + h.Layout.ArrayBytes(1, retPayload))
			if got := ret(head); got != wantChain {
				t.Errorf("chain head retains %d bytes, want %d (%d × (node + byte[%d]))", got, wantChain, retChain, retPayload)
			}
			if got := tree.vert[tree.idom[tree.pre[head]]]; got != mirror {
				t.Errorf("chain head's immediate dominator is %s, want class Retention", g.className(got))
			}
			steps, _ := namedPath(t, a, open, head)
			if n := len(steps); n < 2 || steps[n-2].Class != "class Retention" || steps[n-2].Field != "static chain" {
				t.Errorf("chain head's path %s, want it to end class Retention .static chain → Retention$Node", pathString(steps))
			}

			// The thread-local map: reached through the thread, never through a weak key.
			var maps []uint32
			floor := int64(retMapEntries) * h.Layout.ArrayBytes(1, retMapValue)
			for _, v := range nodesOf(g, "java.util.HashMap") {
				if ret(v) >= floor {
					maps = append(maps, v)
				}
			}
			if len(maps) != 1 {
				t.Fatalf("got %d HashMaps retaining at least %d bytes, want the thread local's one", len(maps), floor)
			}
			steps, root := namedPath(t, a, open, maps[0])
			ps := pathString(steps)
			if !strings.Contains(ps, "java.lang.Thread .threadLocals → ") || !strings.Contains(ps, " .value → java.util.HashMap") || strings.Contains(ps, "referent") {
				t.Errorf("thread-local map's path %s (root %s), want Thread .threadLocals → … .value → HashMap, no referent", ps, root)
			}

			// Weakly referenced objects: their only strong path runs through the array.
			tracked := nodesOf(g, "Retention$Tracked")
			if len(tracked) != retTracked {
				t.Fatalf("got %d Retention$Tracked, want %d", len(tracked), retTracked)
			}
			steps, _ = namedPath(t, a, open, tracked[len(tracked)/2])
			ps = pathString(steps)
			if !strings.Contains(ps, "class Retention .static strongHeld → [LRetention$Tracked; .[") || strings.Contains(ps, "referent") {
				t.Errorf("tracked object's path %s, want class Retention .static strongHeld → [LRetention$Tracked; .[i] → Retention$Tracked", ps)
			}

			// Local variables name their frame: main's args array lives in
			// Retention.main, sleeping in its loop.
			var frames []string
			for v, tag := range g.rootKind {
				if tag == subRootJavaFrame {
					frames = append(frames, g.rootLabel(v))
				}
			}
			if !slices.ContainsFunc(frames, func(f string) bool { return strings.HasPrefix(f, "Java frame Retention.main(Retention.java:") }) {
				t.Errorf("Java frame roots %q, want one in Retention.main(Retention.java:N)", frames)
			}

			// Retained sizes against their definition, for every reported dominator.
			check := []uint32{head, maps[0]}
			for _, d := range a.r.Dominators {
				check = append(check, d.node)
			}
			for _, v := range check {
				want, ok := bruteRetained(g, v)
				if !ok {
					t.Errorf("%s %#x unreachable by brute force", g.className(v), g.addr[v])
					continue
				}
				if got := ret(v); got != want {
					t.Errorf("%s %#x retains %d bytes, want %d by removing it", g.className(v), g.addr[v], got, want)
				}
			}
			if len(a.r.Dominators) == 0 || len(a.r.ByClass) == 0 || len(a.r.Largest) == 0 {
				t.Fatalf("empty report: %d dominators, %d classes, %d largest", len(a.r.Dominators), len(a.r.ByClass), len(a.r.Largest))
			}
			for _, d := range a.r.Dominators[:3] {
				t.Logf("dominator %s %#x retains %d: %s (root %s)", d.Class, d.ID, d.Retained, pathString(d.Path), d.Root)
			}
		})
	}
}
