package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/sparkdx/sparkdx/internal/profile"
)

const profileUsage = "profile [--duration 30s] [--event cpu|native|alloc] [--format text|collapsed|pprof|html] [-o FILE] [--save-jfr FILE] PID|RECORDING.jfr"

// runProfile records a running JVM through HotSpot's attach protocol (no
// agent, no JDK tool on the node) or reads a recording, and writes the
// profile of one kind of sample.
func runProfile(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	duration := fs.Duration("duration", 30*time.Second, "how long to record a running JVM")
	event := fs.String("event", "cpu", "samples to profile: cpu (Java code running), native (threads in native code) or alloc (bytes allocated)")
	format := fs.String("format", "text", "text (top frames per stage), collapsed (stacks for flamegraph.pl), pprof (gzipped protobuf for go tool pprof) or html (a flame graph page)")
	out := fs.String("o", "", "write the profile to `FILE` instead of stdout")
	saveJFR := fs.String("save-jfr", "", "also keep the JVM's recording in `FILE`")
	top := fs.Int("top", 10, "frames per section of the text format")
	namesEvery := fs.Duration("names-every", time.Second, "how often to read thread names (Spark's task threads change names per task); 0: never")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	kind, err := profile.ParseKind(*event)
	if err != nil {
		return usageErr("--event: %v", err)
	}
	write, ok := map[string]func(io.Writer, *profile.Profile) error{
		"text":      func(w io.Writer, p *profile.Profile) error { return profile.WriteText(w, p, *top) },
		"collapsed": profile.WriteCollapsed,
		"pprof":     profile.WritePprof,
	}[*format]
	if *format == "html" {
		ok = true
	}
	if !ok || fs.NArg() != 1 || *duration <= 0 {
		return usageErr("usage: sparkdx %s", profileUsage)
	}
	arg := fs.Arg(0)
	r, title, err := recording(ctx, arg, *duration, *namesEvery, stderr)
	if err != nil {
		return err
	}
	if *saveJFR != "" {
		if err := os.WriteFile(*saveJFR, r.JFR, 0o600); err != nil {
			return inputErr(err)
		}
	}
	p, err := r.Profile(kind)
	if err != nil {
		return inputErr(err)
	}
	if *format == "html" {
		write = func(w io.Writer, p *profile.Profile) error {
			return profile.WriteHTML(w, p, fmt.Sprintf("%s profile of %s", kind, title))
		}
	}
	w, closeOut, err := outputFile(*out, stdout)
	if err != nil {
		return inputErr(err)
	}
	if err := write(w, p); err != nil {
		closeOut()
		return err
	}
	return closeOut()
}

// recording reads arg as a JVM's pid to record, or a .jfr file.
func recording(ctx context.Context, arg string, d, namesEvery time.Duration, stderr io.Writer) (*profile.Recorded, string, error) {
	pid, err := strconv.Atoi(arg)
	if err != nil {
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, "", inputErr(err)
		}
		return &profile.Recorded{JFR: data}, arg, nil
	}
	if namesEvery <= 0 {
		namesEvery = -1
	}
	start := time.Now()
	r, err := profile.Record(ctx, pid, profile.RecordOptions{Duration: d, NamesEvery: namesEvery})
	if err != nil {
		return nil, "", inputErr(err)
	}
	fmt.Fprintf(stderr, "sparkdx profile: recorded pid %d for %s: %d bytes; %d thread dumps took %s in the JVM\n",
		pid, time.Since(start).Round(time.Millisecond), len(r.JFR), r.Dumps, r.DumpTime.Round(time.Millisecond))
	return r, "pid " + arg, nil
}
