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

// heapConfig is heap's command line: the flags' values as typed, checked
// by Validate before any dump is read.
type heapConfig struct {
	dumps           []string // [BEFORE] DUMP
	format          string
	coops, ccp      string
	retained        bool
	top, maxStrings int
}

// heapFlags declares heap's flags on fs, into the config it returns.
func heapFlags(fs *flag.FlagSet) *heapConfig {
	c := &heapConfig{}
	fs.StringVar(&c.format, "format", "text", "output format: text, json or html (a self-contained page; implies --retained)")
	fs.BoolVar(&c.retained, "retained", false, "also compute the dominator tree: retained sizes, who holds the memory, paths to GC roots (reads the dump twice)")
	fs.IntVar(&c.top, "top", 30, "classes in the text table, largest objects and duplicate strings to show (0: all classes)")
	fs.StringVar(&c.coops, "compressed-oops", "auto", "object layout: auto (infer from the dump), true or false")
	fs.StringVar(&c.ccp, "compressed-class-pointers", "auto", "object layout: auto (infer from the dump), true or false")
	fs.IntVar(&c.maxStrings, "max-strings", 0, "bound on Strings tracked for the duplicate-string summary (0: default 2M, -1: off)")
	return c
}

// Validate checks the flags and operands, in the order their errors are
// reported.
func (c *heapConfig) Validate() error {
	if c.format != "text" && c.format != "json" && c.format != "html" {
		return usageErr("--format %q: want text, json or html", c.format)
	}
	if c.top < 0 {
		return usageErr("--top %d: want 0 or more", c.top)
	}
	if len(c.dumps) < 1 || len(c.dumps) > 2 {
		return usageErr("usage: sparkdx %s", heapUsage)
	}
	_, err := c.options()
	return err
}

// options is how the dumps are read.
func (c *heapConfig) options() (hprof.Options, error) {
	var choice hprof.LayoutChoice
	var err error
	if choice.CompressedOops, err = tristate("--compressed-oops", c.coops); err != nil {
		return hprof.Options{}, err
	}
	if choice.CompressedClassPointers, err = tristate("--compressed-class-pointers", c.ccp); err != nil {
		return hprof.Options{}, err
	}
	opts := hprof.Options{Layout: choice, Top: max(c.top, 1), MaxStrings: c.maxStrings}
	if c.top == 0 {
		opts.Top = 30
	}
	return opts, nil
}

// runHeap reads one heap dump, or two to compare, and prints the report.
func runHeap(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("heap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := heapFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	c.dumps = fs.Args()
	if c.format == "html" {
		c.retained = true
	}
	if err := c.Validate(); err != nil {
		return err
	}
	rep, err := c.read(ctx, stderr)
	if err != nil {
		return err
	}
	switch c.format {
	case "json":
		return heapreport.WriteJSON(stdout, rep)
	case "html":
		return heapreport.WriteHTML(stdout, rep, c.top)
	}
	return heapreport.WriteText(stdout, rep, c.top)
}

// read reads the dumps, the older first when two are given.
func (c *heapConfig) read(ctx context.Context, stderr io.Writer) (heapreport.Report, error) {
	opts, err := c.options()
	if err != nil {
		return heapreport.Report{}, err
	}
	// Two dumps come in the order sparkdx diff takes its logs: before, after.
	rep := heapreport.Report{Path: c.dumps[len(c.dumps)-1]}
	if len(c.dumps) == 2 {
		rep.BasePath = c.dumps[0]
		if rep.Base, rep.BaseRetained, err = c.readDump(ctx, rep.BasePath, opts, stderr); err != nil {
			return rep, err
		}
	}
	if rep.Hist, rep.Retained, err = c.readDump(ctx, rep.Path, opts, stderr); err != nil {
		return rep, err
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
	return rep, nil
}

// readDump reads one dump's histogram, and its dominator tree with
// --retained; a dump cut short gives what was read, with a warning.
func (c *heapConfig) readDump(ctx context.Context, path string, opts hprof.Options, stderr io.Writer) (*hprof.Histogram, *hprof.Retained, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if c.retained {
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
