package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
	"github.com/sparkdx/sparkdx/internal/units"
)

const heapUsage = "heap    [--format text|json|html] [--retained] [--top N] [--compressed-oops auto|true|false] [--compressed-class-pointers auto|true|false] DUMP.hprof [BASELINE.hprof]"

func runHeap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("heap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, json or html (a self-contained page; implies --retained)")
	retained := fs.Bool("retained", false, "also compute the dominator tree: retained sizes, who holds the memory, paths to GC roots (reads the dump three times)")
	top := fs.Int("top", 30, "classes in the text table, largest objects and duplicate strings to show (0: all classes)")
	coops := fs.String("compressed-oops", "auto", "object layout: auto (infer from the dump), true or false")
	ccp := fs.String("compressed-class-pointers", "auto", "object layout: auto (infer from the dump), true or false")
	maxStrings := fs.Int("max-strings", 0, "bound on Strings tracked for the duplicate-string summary (0: default 2M, -1: off)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *format != "text" && *format != "json" && *format != "html" {
		return usageErr("--format %q: want text, json or html", *format)
	}
	if *format == "html" {
		*retained = true
	}
	if *top < 0 {
		return usageErr("--top %d: want 0 or more", *top)
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usageErr("usage: sparkdx %s", heapUsage)
	}
	var choice hprof.LayoutChoice
	var err error
	if choice.CompressedOops, err = tristate("--compressed-oops", *coops); err != nil {
		return err
	}
	if choice.CompressedClassPointers, err = tristate("--compressed-class-pointers", *ccp); err != nil {
		return err
	}
	opts := hprof.Options{Layout: choice, Top: max(*top, 1), MaxStrings: *maxStrings}
	if *top == 0 {
		opts.Top = 30
	}
	read := func(path string) (*hprof.Histogram, *hprof.Retained, error) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if *retained {
			h, r, err := hprof.ReadFileRetained(ctx, path, hprof.RetainedOptions{Options: opts, Top: opts.Top})
			if err != nil {
				return nil, nil, inputErr(err)
			}
			return h, r, nil
		}
		h, err := hprof.ReadFile(ctx, path, opts)
		if err != nil {
			return nil, nil, inputErr(err)
		}
		if h.Truncated {
			fmt.Fprintf(stderr, "sparkdx heap: warning: %s truncated at byte %d; the histogram covers what was read\n", path, h.TruncatedAt)
		}
		return h, nil, nil
	}
	rep := heapReport{Path: fs.Arg(0)}
	if rep.h, rep.ret, err = read(rep.Path); err != nil {
		return err
	}
	if fs.NArg() == 2 {
		rep.BasePath = fs.Arg(1)
		if rep.base, rep.baseRet, err = read(rep.BasePath); err != nil {
			return err
		}
	}
	switch *format {
	case "json":
		return writeHeapJSON(stdout, rep)
	case "html":
		return writeHeapHTML(stdout, rep, *top)
	}
	return writeHeapText(stdout, rep, *top)
}

func tristate(flagName, v string) (*bool, error) {
	if v == "auto" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, usageErr("%s %q: want auto, true or false", flagName, v)
	}
	return &b, nil
}

type heapReport struct {
	Path, BasePath string
	h, base        *hprof.Histogram
	ret, baseRet   *hprof.Retained // with --retained
}

// retainedGrowth is the change in retained bytes per top-level dominator
// class since the baseline (nil without --retained and a baseline).
func (r heapReport) retainedGrowth() []hprof.Growth {
	if r.ret == nil || r.baseRet == nil {
		return nil
	}
	return hprof.Diff(retainedStats(r.baseRet), retainedStats(r.ret))
}

func retainedStats(r *hprof.Retained) []hprof.ClassStat {
	out := make([]hprof.ClassStat, len(r.ByClass))
	for i, c := range r.ByClass {
		out[i] = hprof.ClassStat{Class: c.Class, Instances: c.Objects, Bytes: c.Retained}
	}
	return out
}

type heapDumpJSON struct {
	Path        string `json:"path"`
	Format      string `json:"format"`
	IDSize      int    `json:"idSize"`
	Bytes       int64  `json:"bytes"`
	Records     int64  `json:"records"`
	Truncated   bool   `json:"truncated"`
	TruncatedAt int64  `json:"truncatedAt,omitempty"`
}

type heapLayoutJSON struct {
	CompressedOops          bool   `json:"compressedOops"`
	CompressedClassPointers bool   `json:"compressedClassPointers"`
	CompactHeaders          bool   `json:"compactHeaders"`
	ElementAlignedArrays    bool   `json:"elementAlignedArrays"`
	ThirtyTwoBit            bool   `json:"thirtyTwoBit"`
	Evidence                string `json:"evidence"`
}

type heapTotalsJSON struct {
	Instances int64 `json:"instances"`
	Bytes     int64 `json:"bytes"`
}

type heapJSON struct {
	Schema           string              `json:"schema"`
	Dump             heapDumpJSON        `json:"dump"`
	Layout           heapLayoutJSON      `json:"layout"`
	Totals           heapTotalsJSON      `json:"totals"`
	Classes          []hprof.ClassStat   `json:"classes"`
	Fillers          []hprof.ClassStat   `json:"fillers"`
	Largest          []hprof.Object      `json:"largest"`
	DuplicateStrings hprof.StringSummary `json:"duplicateStrings"`
	Spark            []hprof.Note        `json:"spark"`
	Baseline         *heapDumpJSON       `json:"baseline,omitempty"`
	Growth           []hprof.Growth      `json:"growth,omitempty"`
	// With --retained: the dominator tree's summary and, with a baseline,
	// the growth of retained bytes per top-level dominator class.
	Retained       *hprof.Retained `json:"retained,omitempty"`
	RetainedGrowth []hprof.Growth  `json:"retainedGrowth,omitempty"`
}

func dumpJSON(path string, h *hprof.Histogram) heapDumpJSON {
	return heapDumpJSON{Path: path, Format: h.Version, IDSize: h.IDSize, Bytes: h.BytesRead, Records: h.Records,
		Truncated: h.Truncated, TruncatedAt: h.TruncatedAt}
}

func writeHeapJSON(w io.Writer, r heapReport) error {
	h := r.h
	inst, bytes := hprof.Totals(h.Classes)
	out := heapJSON{
		Schema: "sparkdx.heap/v1",
		Dump:   dumpJSON(r.Path, h),
		Layout: heapLayoutJSON{h.Layout.CompressedOops, h.Layout.CompressedClassPointers, h.Layout.CompactHeaders,
			h.Layout.ElementAlignedArrays, h.Layout.ThirtyTwoBit, h.LayoutEvidence},
		Totals:           heapTotalsJSON{inst, bytes},
		Classes:          nonNil(h.Classes),
		Fillers:          nonNil(h.Fillers),
		Largest:          nonNil(h.Largest),
		DuplicateStrings: h.Strings,
		Spark:            nonNil(hprof.SparkNotes(h.Classes)),
	}
	if out.DuplicateStrings.Top == nil {
		out.DuplicateStrings.Top = []hprof.DupString{}
	}
	if r.base != nil {
		b := dumpJSON(r.BasePath, r.base)
		out.Baseline = &b
		out.Growth = nonNil(hprof.Diff(r.base.Classes, h.Classes))
	}
	out.Retained = r.ret
	if g := r.retainedGrowth(); r.baseRet != nil {
		out.RetainedGrowth = nonNil(g)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func writeHeapText(w io.Writer, r heapReport, top int) error {
	h := r.h
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
	if r.base != nil {
		writeGrowth(w, r.BasePath, hprof.Diff(r.base.Classes, h.Classes), top)
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
	if r.ret != nil {
		writeRetainedText(w, r, top)
	}
	if notes := hprof.SparkNotes(h.Classes); len(notes) > 0 {
		fmt.Fprintln(w, "\nSpark notes:")
		for _, n := range notes {
			fmt.Fprintf(w, "  %s: %d instances, %s\n    %s\n    see %s\n", n.Class, n.Instances, units.Bytes(n.Bytes), n.Note, n.Recipe)
		}
	}
	return nil
}

// writeClassTable prints the histogram as jmap -histo does.
func writeClassTable(w io.Writer, classes []hprof.ClassStat, top int) {
	fmt.Fprintln(w, " num     #instances         #bytes  class name")
	fmt.Fprintln(w, "----------------------------------------------")
	shown := classes
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	for i, c := range shown {
		fmt.Fprintf(w, "%4d:%14d%15d  %s\n", i+1, c.Instances, c.Bytes, c.Class)
	}
	if len(shown) < len(classes) {
		fmt.Fprintf(w, "  ... %d more classes (--top 0 shows all)\n", len(classes)-len(shown))
	}
	inst, bytes := hprof.Totals(classes)
	fmt.Fprintf(w, "Total%14d%15d\n", inst, bytes)
}

func writeGrowth(w io.Writer, base string, growth []hprof.Growth, top int) {
	fmt.Fprintf(w, "\ngrowth since %s (by bytes):\n", base)
	fmt.Fprintln(w, " num  Δ#instances        Δ#bytes  class name")
	shown := growth
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	for i, g := range shown {
		fmt.Fprintf(w, "%4d: %+12d %+14d  %s\n", i+1, g.InstancesDelta, g.BytesDelta, g.Class)
	}
	if len(shown) < len(growth) {
		fmt.Fprintf(w, "  ... %d more classes changed\n", len(growth)-len(shown))
	}
}
