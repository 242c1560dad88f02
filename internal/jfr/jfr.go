// Package jfr reads Java Flight Recorder files (format 2.x, JDK 11 and
// later) far enough for profiles: the chunk header, the metadata that
// declares every type, the constant pools, and the samples of CPU
// (jdk.ExecutionSample), native code (jdk.NativeMethodSample) and
// allocation (jdk.ObjectAllocationSample) with their stack traces,
// threads, methods and classes.
//
// A recording is a sequence of chunks; each holds its metadata (the
// classes, their fields in order) and checkpoint events (constant pools:
// threads, stack traces, methods, classes, symbols, strings keyed by
// number), and events whose fields follow their class's declaration.
// Every value is decoded generically from the metadata, so fields the JDK
// adds in later releases are skipped rather than misread.
package jfr

import (
	"fmt"
	"strings"
	"time"
)

// Event types Parse keeps.
const (
	ExecutionSample        = "jdk.ExecutionSample"
	NativeMethodSample     = "jdk.NativeMethodSample"
	ObjectAllocationSample = "jdk.ObjectAllocationSample"
)

// Recording is what Parse returns.
type Recording struct {
	Chunks  int
	Start   time.Time
	End     time.Time
	Samples []Sample
}

// Sample is one event of the kept types.
type Sample struct {
	Type   string
	Time   time.Time
	Thread *Thread
	State  string // thread state of execution and native samples (STATE_RUNNABLE)
	Stack  *Stack
	// Weight: bytes the sample stands for (allocation samples), else 1.
	Weight      int64
	ObjectClass string // the allocated class (allocation samples), dotted
}

// Thread is a Java thread as JFR names it.
type Thread struct {
	JavaName string
	OSName   string
	JavaID   int64
	OSID     int64
}

// Stack is a stack trace, innermost frame first. Samples of one chunk
// that share a trace share its *Stack.
type Stack struct {
	Frames    []Frame
	Truncated bool // deeper than the recording's stackdepth
}

// Frame is one method in a stack trace.
type Frame struct {
	Class      string // dotted: org.apache.spark.executor.Executor$TaskRunner
	Method     string
	Descriptor string
	Line       int64
	BCI        int64
	Type       string // Interpreted, JIT compiled, Inlined, Native
}

// Name is Class.Method, how profiles label a frame.
func (f Frame) Name() string { return f.Class + "." + f.Method }

// Parse reads a whole recording. An error names the byte offset where the
// data went wrong.
func Parse(data []byte) (*Recording, error) {
	rec := &Recording{}
	for off := 0; off < len(data); {
		c, err := parseHeader(data[off:], off)
		if err != nil {
			return nil, fmt.Errorf("jfr: %w", err)
		}
		if err := c.read(); err != nil {
			return nil, fmt.Errorf("jfr: chunk at %d: %w", off, err)
		}
		if err := c.samples(rec); err != nil {
			return nil, fmt.Errorf("jfr: chunk at %d: %w", off, err)
		}
		rec.Chunks++
		off += c.size
	}
	if rec.Chunks == 0 {
		return nil, fmt.Errorf("jfr: empty recording")
	}
	return rec, nil
}

// time converts ticks as the JDK does (a double divisor).
func (c *chunk) time(ticks int64) time.Time {
	div := float64(c.ticksPerSec) / 1e9
	return time.Unix(0, c.startNanos+int64(float64(ticks-c.startTicks)/div)).UTC()
}

// dotted turns a JVM internal name (java/lang/String) into a Java one.
func dotted(s string) string { return strings.ReplaceAll(s, "/", ".") }
