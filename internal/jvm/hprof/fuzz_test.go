package hprof

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
)

// FuzzHprof feeds arbitrary bytes to the record reader: it must never
// panic, and a histogram it returns must be self-consistent.
func FuzzHprof(f *testing.F) {
	f.Add(syntheticDump())
	// The first 48 KB of a real JDK 17 dump: header, names, classes and
	// the start of the first heap segment, cut mid-record.
	if head, err := os.ReadFile("testdata/jdk17-head.hprof"); err == nil {
		f.Add(head)
	}
	f.Add([]byte("JAVA PROFILE 1.0.1\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Read(context.Background(), bytes.NewReader(data), Options{Top: 5, BufferSize: 64 << 10})
		if err != nil {
			return
		}
		for _, c := range h.Classes {
			if c.Instances <= 0 || c.Bytes < 0 {
				t.Fatalf("class %q: got %d instances %d bytes", c.Class, c.Instances, c.Bytes)
			}
		}
		if h.Truncated && h.TruncatedAt > int64(len(data)) {
			t.Fatalf("truncated at %d, past the input's %d bytes", h.TruncatedAt, len(data))
		}
	})
}

// FuzzRetained feeds arbitrary bytes to the three-pass dominator analysis:
// it must never panic, and what it returns must add up (the top-level
// dominators retain the reachable heap, no more objects are reachable than
// exist).
func FuzzRetained(f *testing.F) {
	f.Add(retentionDump(8))
	f.Add(retentionDump(4))
	f.Add(syntheticDump())
	f.Fuzz(func(t *testing.T, data []byte) {
		open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		_, r, err := ReadRetained(context.Background(), open, RetainedOptions{Options: Options{BufferSize: 64 << 10}, Top: 5})
		if err != nil {
			return
		}
		if r.Reachable < 0 || r.Reachable > r.Objects || r.Unreachable != r.Objects-r.Reachable {
			t.Fatalf("%d objects, %d reachable, %d unreachable", r.Objects, r.Reachable, r.Unreachable)
		}
		var sum int64
		for _, c := range r.ByClass {
			sum += c.Retained
		}
		if sum != r.ReachableBytes {
			t.Fatalf("top-level dominators retain %d bytes, want the reachable %d", sum, r.ReachableBytes)
		}
	})
}
