package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/heapreport"
	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
)

const heapUsage = "heap    [--format text|json|html] [--retained] [--top N] [--compressed-oops auto|true|false] [--compressed-class-pointers auto|true|false] [BEFORE.hprof] DUMP.hprof"

func runHeap(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("heap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, json or html (a self-contained page; implies --retained)")
	retained := fs.Bool("retained", false, "also compute the dominator tree: retained sizes, who holds the memory, paths to GC roots (reads the dump twice)")
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
			if errors.Is(err, hprof.ErrIncomplete) && h != nil {
				fmt.Fprintf(stderr, "sparkdx heap: warning: %v; showing the histogram of what was read\n", err)
				return h, nil, nil
			}
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
	// Two dumps come in the order sparkdx diff takes its logs: before, after.
	rep := heapreport.Report{Path: fs.Arg(fs.NArg() - 1)}
	if fs.NArg() == 2 {
		rep.BasePath = fs.Arg(0)
		if rep.Base, rep.BaseRetained, err = read(rep.BasePath); err != nil {
			return err
		}
	}
	if rep.Hist, rep.Retained, err = read(rep.Path); err != nil {
		return err
	}
	// Before the order matched diff's, the baseline came second: dumps
	// whose headers say the first is the newer are taken the other way.
	if rep.Base != nil && !rep.Base.DumpTime.IsZero() && rep.Base.DumpTime.After(rep.Hist.DumpTime) && !rep.Hist.DumpTime.IsZero() {
		fmt.Fprintf(stderr, "sparkdx heap: note: %s was written after %s (their headers say); comparing it against the older one\n",
			rep.BasePath, rep.Path)
		rep.Path, rep.BasePath = rep.BasePath, rep.Path
		rep.Hist, rep.Base = rep.Base, rep.Hist
		rep.Retained, rep.BaseRetained = rep.BaseRetained, rep.Retained
	}
	switch *format {
	case "json":
		return heapreport.WriteJSON(stdout, rep)
	case "html":
		return heapreport.WriteHTML(stdout, rep, *top)
	}
	return heapreport.WriteText(stdout, rep, *top)
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
