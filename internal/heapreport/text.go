package heapreport

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
	"github.com/sparkdx/sparkdx/internal/textsafe"
	"github.com/sparkdx/sparkdx/internal/units"
)

// WriteText writes the report for people: the histogram as jmap -histo
// prints it, growth since the baseline, largest objects, duplicate strings,
// who holds the heap and Spark notes. top bounds each list (0: all classes).
// Class names and strings come from the dump: what would drive a terminal
// is escaped (package textsafe).
func WriteText(w io.Writer, r Report, top int) error {
	sw := textsafe.NewWriter(w)
	writeText(sw, r, top)
	return sw.Flush()
}

func writeText(w io.Writer, r Report, top int) {
	h := r.Hist
	fmt.Fprintf(w, "heap dump %s: %s, %d-byte ids, %s read\n", r.Path, h.Version, h.IDSize, units.Bytes(h.BytesRead))
	fmt.Fprintf(w, "layout: %v (%s)\n", h.Layout, h.LayoutEvidence)
	if h.Truncated {
		fmt.Fprintf(w, "truncated at byte %d: counts cover the dump up to there\n", h.TruncatedAt)
	}
	fmt.Fprintln(w)
	writeClassTable(w, h.Classes, top)
	if len(h.Fillers) > 0 {
		fmt.Fprintln(w, "\nGC filler objects (dead space, not in the table above):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, f := range h.Fillers {
			fmt.Fprintf(tw, "%d\t%d\t %s\t\n", f.Instances, f.Bytes, f.Class)
		}
		tw.Flush()
	}
	if r.Base != nil {
		writeGrowth(w, r.BasePath, hprof.Diff(r.Base.Classes, h.Classes), top)
	}
	if len(h.Largest) > 0 {
		fmt.Fprintln(w, "\nlargest objects:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  bytes\tlength\tclass\tid")
		shown := h.Largest
		if top > 0 {
			shown = shown[:min(len(shown), top)]
		}
		for _, o := range shown {
			length := "-"
			if o.Length >= 0 {
				length = strconv.FormatInt(o.Length, 10)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t0x%x\n", units.Bytes(o.Bytes), length, o.Class, o.ID)
		}
		tw.Flush()
	}
	s := h.Strings
	if s.Strings > 0 {
		fmt.Fprintf(w, "\nduplicate strings: %d of %d Strings repeat a value (%d distinct); %s in repeated value arrays\n",
			s.Duplicates, s.Strings, s.Distinct, units.Bytes(s.WastedBytes))
		if s.Incomplete {
			fmt.Fprintln(w, "  (tracking bound reached: figures cover part of the Strings; raise --max-strings)")
		}
		for _, d := range s.Top {
			v := d.Value
			if v == "" {
				v = "(text not sampled)"
			} else {
				v = strconv.Quote(v)
			}
			fmt.Fprintf(w, "  %8d x  %10s  %s\n", d.Count, units.Bytes(d.WastedBytes), v)
		}
	}
	if r.Retained != nil {
		writeRetainedText(w, r, top)
	}
	if notes := hprof.SparkNotes(h.Classes); len(notes) > 0 {
		fmt.Fprintln(w, "\nSpark notes:")
		for _, n := range notes {
			fmt.Fprintf(w, "  %s: %d instances, %s\n    %s\n    see %s\n", n.Class, n.Instances, units.Bytes(n.Bytes), n.Note, n.Recipe)
		}
	}
}

// writeClassTable prints the histogram as jmap -histo does.
func writeClassTable(w io.Writer, classes []hprof.ClassStat, top int) {
	fmt.Fprintln(w, " num     #instances         #bytes  class name")
	fmt.Fprintln(w, "----------------------------------------------")
	shown := firstN(classes, top)
	for i, c := range shown {
		fmt.Fprintf(w, "%4d:%14d%15d  %s\n", i+1, c.Instances, c.Bytes, c.Class)
	}
	more(w, len(classes)-len(shown), "classes (--top 0 shows all)")
	inst, bytes := hprof.Totals(classes)
	fmt.Fprintf(w, "Total%14d%15d\n", inst, bytes)
}

func writeGrowth(w io.Writer, base string, growth []hprof.Growth, top int) {
	fmt.Fprintf(w, "\ngrowth since %s (by bytes):\n", base)
	fmt.Fprintln(w, " num  Δ#instances        Δ#bytes  class name")
	shown := firstN(growth, top)
	for i, g := range shown {
		fmt.Fprintf(w, "%4d: %+12d %+14d  %s\n", i+1, g.InstancesDelta, g.BytesDelta, g.Class)
	}
	more(w, len(growth)-len(shown), "classes changed")
}

// firstN is s cut to its first n elements (n <= 0: all of s).
func firstN[T any](s []T, n int) []T {
	if n > 0 && len(s) > n {
		return s[:n]
	}
	return s
}

// more says how many lines a list left out, if any.
func more(w io.Writer, hidden int, what string) {
	if hidden > 0 {
		fmt.Fprintf(w, "  ... %d more %s\n", hidden, what)
	}
}
