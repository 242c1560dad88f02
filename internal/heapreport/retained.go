package heapreport

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
	"github.com/sparkdx/sparkdx/internal/units"
)

// writeRetainedText prints the dominator tree's answer to "who holds the
// heap" after the histogram.
func writeRetainedText(w io.Writer, r Report, top int) {
	ret := r.Retained
	if top <= 0 {
		top = 30
	}
	fmt.Fprintf(w, "\nwho holds the heap: %d of %d objects reachable from %d GC roots retain %s",
		ret.Reachable, ret.Objects, ret.Roots, units.Bytes(ret.ReachableBytes))
	if ret.Unreachable > 0 {
		fmt.Fprintf(w, "; %d unreachable (%s, garbage the dump kept)", ret.Unreachable, units.Bytes(ret.UnreachableBytes))
	}
	fmt.Fprintln(w)
	if ret.MissingRefs > 0 {
		fmt.Fprintf(w, "  (%d references point at objects the dump does not hold, e.g. the CDS archive; they are left out)\n", ret.MissingRefs)
	}
	if len(ret.Owners) > 0 {
		fmt.Fprintln(w, "\nretained by Spark owner (each byte counted once, for the outermost owner):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, o := range ret.Owners {
			fmt.Fprintf(tw, "  %s\t%s\t%d objects\t%s\n", units.Bytes(o.Retained), o.Owner, o.Objects, o.Note)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\ntop dominators (held by no single other object; retained = what a collection would free without them):")
	for i, d := range ret.Dominators[:min(top, len(ret.Dominators))] {
		fmt.Fprintf(w, "%4d  %10s  %5.1f%%  %s 0x%x%s\n", i+1, units.Bytes(d.Retained), pct(d.Retained, ret.ReachableBytes), d.Class, d.ID, lengthNote(d.Length))
		if len(d.Path) > 0 {
			fmt.Fprintf(w, "        path: %s\n", pathText(d.Root, d.Path))
		}
		for _, c := range d.Children[:min(3, len(d.Children))] {
			fmt.Fprintf(w, "        holds %10s  %s%s 0x%x%s\n", units.Bytes(c.Retained), byField(c.Field), c.Class, c.ID, lengthNote(c.Length))
		}
	}
	fmt.Fprintln(w, "\nretained by top-level dominator class:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "objects\tretained\t class\t")
	for _, c := range ret.ByClass[:min(top, len(ret.ByClass))] {
		fmt.Fprintf(tw, "%d\t%s\t %s\t\n", c.Objects, units.Bytes(c.Retained), c.Class)
	}
	tw.Flush()
	if len(ret.Largest) > 0 {
		fmt.Fprintln(w, "\nlargest objects by holder (same class under the same top-level dominator folded):")
		for _, l := range ret.Largest[:min(top, len(ret.Largest))] {
			fmt.Fprintf(w, "  %3d × %-24s %10s  held by %s 0x%x (retains %s)\n", l.Count, l.Class, units.Bytes(l.Bytes),
				l.Holder.Class, l.Holder.ID, units.Bytes(l.Holder.Retained))
			if len(l.Holder.Path) > 0 {
				fmt.Fprintf(w, "        path: %s\n", pathText(l.Holder.Root, l.Holder.Path))
			}
		}
	}
	if g := r.RetainedGrowth(); r.BaseRetained != nil {
		fmt.Fprintf(w, "\nretained growth since %s (by top-level dominator class):\n", r.BasePath)
		for i, x := range g[:min(top, len(g))] {
			fmt.Fprintf(w, "%4d: %+12d objects %+14d bytes  %s\n", i+1, x.InstancesDelta, x.BytesDelta, x.Class)
		}
	}
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// byField is how a holds line names the reference: ".static chain → ",
// nothing when the holder reaches the object through others.
func byField(f string) string {
	if f == "" {
		return ""
	}
	return fieldText(f) + " → "
}

// fieldText writes a reference as paths show it: ".next", ".static
// HOLDER", "[3]".
func fieldText(f string) string {
	if strings.HasPrefix(f, "[") {
		return f
	}
	return "." + f
}

func lengthNote(n int64) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprintf(" (length %d)", n)
}

// pathText writes a path as "[root kind] A .field → B .field → C".
func pathText(root string, steps []hprof.PathStep) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] ", root)
	for i, s := range steps {
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(s.Class)
		if s.Field != "" {
			b.WriteString(" " + fieldText(s.Field))
		}
	}
	return b.String()
}
