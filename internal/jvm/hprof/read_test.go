package hprof

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func histMap(h *Histogram) map[string]ClassStat {
	m := map[string]ClassStat{}
	for _, c := range h.Classes {
		m[c.Class] = c
	}
	return m
}

func TestReadSynthetic(t *testing.T) {
	h, err := Read(context.Background(), bytes.NewReader(syntheticDump()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := histMap(h)
	for name, w := range syntheticWant {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
	if len(got) != len(syntheticWant) {
		t.Errorf("got %d classes, want %d: %+v", len(got), len(syntheticWant), h.Classes)
	}
	if !h.Layout.CompressedOops || !h.Layout.CompressedClassPointers {
		t.Errorf("got layout %v, want compressed oops and class pointers (%s)", h.Layout, h.LayoutEvidence)
	}
	if h.Truncated {
		t.Errorf("got truncated at %d, want complete", h.TruncatedAt)
	}
	s := h.Strings
	if s.Strings != 4 || s.Distinct != 2 || s.Duplicates != 2 || s.WastedBytes != 48 {
		t.Errorf("strings: got %+v, want 4 strings, 2 distinct, 2 duplicates, 48 wasted bytes", s)
	}
	if len(s.Top) != 1 || s.Top[0].Value != "dup" || s.Top[0].Count != 3 {
		t.Errorf("top duplicate: got %+v, want \"dup\" x3", s.Top)
	}
	if len(h.Largest) == 0 || h.Largest[0].Class != "[Ljava.lang.Object;" || h.Largest[0].Bytes != 40 || h.Largest[0].Length != 5 {
		t.Errorf("largest: got %+v, want the Object[5] of 40 bytes first", h.Largest)
	}
	notes := SparkNotes(h.Classes)
	if len(notes) != 1 || notes[0].Class != "org.apache.spark.CleanupTaskWeakReference" || !strings.HasPrefix(notes[0].Recipe, "docs/recipes/troubleshoot/") {
		t.Errorf("spark notes: got %+v, want the ContextCleaner note", notes)
	}
}

// TestRead32Bit reads the synthetic heap as a 32-bit JVM writes it: format
// 1.0.1, 4-byte identifiers, one HEAP DUMP record.
func TestRead32Bit(t *testing.T) {
	h, err := Read(context.Background(), bytes.NewReader(buildSynthetic("JAVA PROFILE 1.0.1", 4, 0x70000000)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !h.Layout.ThirtyTwoBit || h.IDSize != 4 || h.Version != "JAVA PROFILE 1.0.1" {
		t.Fatalf("got layout %v, id size %d, version %q; want 32-bit, 4, 1.0.1", h.Layout, h.IDSize, h.Version)
	}
	// 8-byte headers, 4-byte references, arrays from offset 12.
	want := map[string]ClassStat{
		"Foo$Bar":             {"Foo$Bar", 3, 3 * 24},
		"java.lang.String":    {"java.lang.String", 4, 4 * 24},
		"[B":                  {"[B", 4, 3*16 + 24},
		"[Ljava.lang.Object;": {"[Ljava.lang.Object;", 2, 32 + 16},
		"org.apache.spark.CleanupTaskWeakReference": {"org.apache.spark.CleanupTaskWeakReference", 1, 8},
		"java.lang.Class": {"java.lang.Class", 6, 6*8 + 8},
	}
	got := histMap(h)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
	if h.Strings.Duplicates != 2 {
		t.Errorf("duplicate strings: got %d, want 2", h.Strings.Duplicates)
	}
}

func TestReadLayoutOverride(t *testing.T) {
	no := false
	h, err := Read(context.Background(), bytes.NewReader(syntheticDump()), Options{Layout: LayoutChoice{CompressedOops: &no}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Layout.CompressedOops {
		t.Fatalf("got %v, want -UseCompressedOops as forced", h.Layout)
	}
	// Object[5] -> 16+40 = 56, Object[0] -> 16.
	got := histMap(h)
	if got["[Ljava.lang.Object;"].Bytes != 56+16 {
		t.Errorf("Object[] bytes: got %d, want 72", got["[Ljava.lang.Object;"].Bytes)
	}
	if !strings.Contains(h.LayoutEvidence, "options") {
		t.Errorf("evidence %q does not say the layout was set by options", h.LayoutEvidence)
	}
}

func TestReadGzipMultiMember(t *testing.T) {
	dump := syntheticDump()
	var buf bytes.Buffer
	for _, part := range [][]byte{dump[:len(dump)/3], dump[len(dump)/3:]} {
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(part); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "heap.hprof.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ReadFile(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := histMap(h)
	for name, w := range syntheticWant {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
	// A gzip stream cut short is a truncated dump, not a failure.
	if err := os.WriteFile(path, buf.Bytes()[:buf.Len()-40], 0o644); err != nil {
		t.Fatal(err)
	}
	h, err = ReadFile(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("truncated gzip: got error %v, want a truncated histogram", err)
	}
	if !h.Truncated {
		t.Errorf("truncated gzip: got Truncated false")
	}
}

// TestReadTruncated cuts the dump at every byte: never a panic; past the
// header always a histogram marked truncated with counts no larger than the
// full dump's.
func TestReadTruncated(t *testing.T) {
	dump := syntheticDump()
	full := histMap(mustRead(t, dump))
	for n := 0; n < len(dump); n++ {
		h, err := Read(context.Background(), bytes.NewReader(dump[:n]), Options{})
		if n < 31 {
			if err == nil {
				t.Fatalf("cut at %d (inside the header): got no error", n)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: got error %v, want a truncated histogram", n, err)
		}
		atEnd := n == len(dump)-9 // only the HEAP DUMP END record is missing
		if !h.Truncated && !atEnd && !recordBoundary(dump, n) {
			t.Fatalf("cut at %d: got Truncated false", n)
		}
		if h.Truncated && h.TruncatedAt != int64(n) {
			t.Fatalf("cut at %d: got TruncatedAt %d", n, h.TruncatedAt)
		}
		for _, c := range h.Classes {
			if f := full[c.Class]; c.Instances > f.Instances {
				t.Fatalf("cut at %d: %s got %d instances, more than the full dump's %d", n, c.Class, c.Instances, f.Instances)
			}
		}
	}
}

// recordBoundary reports whether n is where a top-level record starts.
func recordBoundary(dump []byte, n int) bool {
	off := 31
	for off < len(dump) {
		if off == n {
			return true
		}
		length := int(uint32(dump[off+5])<<24 | uint32(dump[off+6])<<16 | uint32(dump[off+7])<<8 | uint32(dump[off+8]))
		off += 9 + length
	}
	return off == n
}

func mustRead(t *testing.T, dump []byte) *Histogram {
	t.Helper()
	h, err := Read(context.Background(), bytes.NewReader(dump), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestReadGarbage(t *testing.T) {
	dump := syntheticDump()
	badTag := append([]byte{}, dump...)
	badTag[31] = 0x77 // first record's tag
	badSub := append([]byte{}, dump...)
	// The first sub-record of the first segment: find the segment.
	off := 31
	for badSub[off] != tagHeapDumpSegment {
		off += 9 + int(uint32(badSub[off+5])<<24|uint32(badSub[off+6])<<16|uint32(badSub[off+7])<<8|uint32(badSub[off+8]))
	}
	badSub[off+9] = 0x66
	badLen := append([]byte{}, dump...)
	badLen[off+8] = 3 // segment shorter than its first sub-record
	badLen[off+7], badLen[off+6], badLen[off+5] = 0, 0, 0
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "offset 0"},
		{"not hprof", []byte("PK\x03\x04 this is a zip file, not a heap dump at all"), "offset 0: not an HPROF dump"},
		{"bad id size", append([]byte("JAVA PROFILE 1.0.2\x00\x00\x00\x00\x05"), make([]byte, 8)...), "offset 19: identifier size 5"},
		{"unknown record tag", badTag, "offset 31: record 0x77: unknown record tag"},
		{"unknown sub-record", badSub, "sub-record 0x66"},
		{"sub-record past segment end", badLen, "past the segment end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(context.Background(), bytes.NewReader(tt.in), Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestSyntheticGolden keeps testdata/synthetic.hprof (used by the CLI tests)
// equal to what the builder writes.
func TestSyntheticGolden(t *testing.T) {
	path := filepath.Join("testdata", "synthetic.hprof")
	dump := syntheticDump()
	if *update {
		if err := os.WriteFile(path, dump, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, dump) {
		t.Errorf("%s is stale: run go test -update", path)
	}
}

func TestDiff(t *testing.T) {
	base := []ClassStat{{"A", 10, 100}, {"B", 5, 50}, {"Gone", 1, 16}}
	cur := []ClassStat{{"A", 20, 200}, {"B", 5, 50}, {"New", 2, 1000}}
	got := Diff(base, cur)
	want := []Growth{
		{"New", 2, 1000, 2, 1000},
		{"A", 20, 200, 10, 100},
		{"Gone", 0, 0, -1, -16},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, bytes.NewReader(syntheticDump()), Options{})
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("got error %v, want context canceled", err)
	}
}
