package hprof

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"testing"
)

// readerAtOpener opens data as an io.ReaderAt, so pass 3 seeks.
func readerAtOpener(data []byte) Opener {
	return func() (io.ReadCloser, error) {
		return struct {
			*bytes.Reader
			io.Closer
		}{bytes.NewReader(data), io.NopCloser(nil)}, nil
	}
}

// TestNamesBySeeking checks that pass 3 names the same steps and array
// lengths when it seeks from the marks (every node marked, every few, one
// mark) as when it reads the whole dump.
func TestNamesBySeeking(t *testing.T) {
	for _, idSize := range []int{8, 4} {
		for _, classesLast := range []bool{false, true} {
			dump := buildRetentionDump(idSize, classesLast)
			want, err := analyze(context.Background(), bytesOpener(dump), RetainedOptions{Top: 50})
			if err != nil {
				t.Fatal(err)
			}
			named := 0
			for _, d := range want.r.Dominators {
				for _, st := range d.Path {
					if st.Field != "" {
						named++
					}
				}
			}
			if named == 0 {
				t.Fatal("the dump's paths name no field: nothing to compare")
			}
			for _, every := range []int{1, 3, 1 << 20} {
				t.Run(fmt.Sprintf("%d-byte ids/classes last %v/every %d", idSize, classesLast, every), func(t *testing.T) {
					got, err := analyze(context.Background(), readerAtOpener(dump), RetainedOptions{Top: 50, markEvery: every})
					if err != nil {
						t.Fatal(err)
					}
					if len(got.g.marks) == 0 {
						t.Fatal("pass 1 left no marks")
					}
					if !reflect.DeepEqual(got.r, want.r) {
						t.Errorf("got %+v, want %+v", got.r, want.r)
					}
				})
			}
		}
	}
}

// TestNamesBySeekingChangedDump: a dump cut after pass 1 is an error
// naming the offset, not a wrong name.
func TestNamesBySeekingChangedDump(t *testing.T) {
	dump := buildRetentionDump(8, false)
	opens := 0
	open := func() (io.ReadCloser, error) {
		opens++
		if opens > 1 { // pass 3
			return readerAtOpener(dump[:len(dump)/2])()
		}
		return readerAtOpener(dump)()
	}
	_, err := analyze(context.Background(), open, RetainedOptions{Top: 50, markEvery: 1})
	if err == nil {
		t.Fatal("got no error, want one for a dump cut after pass 1")
	}
	t.Log(err)
}

// TestNamesBySeekingSegments cuts the dump's heap records into a segment
// per node, with another record between each two, so that a seek's
// reading crosses record headers.
func TestNamesBySeekingSegments(t *testing.T) {
	dump := buildRetentionDump(8, false)
	want, err := analyze(context.Background(), bytesOpener(dump), RetainedOptions{Top: 50, markEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	split := splitSegments(t, dump, want.g.marks)
	for _, every := range []int{1, 2, 1 << 20} {
		got, err := analyze(context.Background(), readerAtOpener(split), RetainedOptions{Top: 50, markEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.r, want.r) {
			t.Errorf("every %d: got %+v, want %+v", every, got.r, want.r)
		}
	}
}

// splitSegments rewrites the heap record holding marks into one record
// per mark (the first keeps what comes before the first mark), each
// followed by an UNLOAD CLASS record.
func splitSegments(t *testing.T, dump []byte, marks []mark) []byte {
	t.Helper()
	if len(marks) < 3 || marks[0].end != marks[len(marks)-1].end {
		t.Fatalf("want the marks of one heap record, got %d", len(marks))
	}
	end := marks[0].end
	var start int64 = -1 // of the heap record's body
	for _, m := range marks {
		if start < 0 || m.at < start {
			start = m.at
		}
	}
	// The body starts before the first sub-record: find its header by
	// its length field.
	for s := start; s >= 9; s-- {
		if l := int64(dump[s-4])<<24 | int64(dump[s-3])<<16 | int64(dump[s-2])<<8 | int64(dump[s-1]); s+l == end &&
			(dump[s-9] == tagHeapDumpSegment || dump[s-9] == tagHeapDump) {
			start = s
			break
		}
	}
	var out bytes.Buffer
	out.Write(dump[:start-9])
	cuts := []int64{start}
	for _, m := range marks[1:] {
		cuts = append(cuts, m.at)
	}
	cuts = append(cuts, end)
	for i := 0; i+1 < len(cuts); i++ {
		body := dump[cuts[i]:cuts[i+1]]
		out.Write([]byte{tagHeapDumpSegment, 0, 0, 0, 0, byte(len(body) >> 24), byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))})
		out.Write(body)
		out.Write([]byte{0x03, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1}) // UNLOAD CLASS serial 1
	}
	out.Write(dump[end:])
	return out.Bytes()
}

// FuzzNamesBySeeking: whatever the dump, pass 3 by seeking (a mark every
// 3 nodes) reports what the full pass does.
func FuzzNamesBySeeking(f *testing.F) {
	f.Add(retentionDump(8))
	f.Add(retentionDump(4))
	f.Add(syntheticDump())
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := RetainedOptions{Options: Options{BufferSize: 64 << 10}, Top: 5, markEvery: 3}
		want, errWant := analyze(context.Background(), bytesOpener(data), opts)
		got, errGot := analyze(context.Background(), readerAtOpener(data), opts)
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("full pass: %v; by seeking: %v", errWant, errGot)
		}
		if errWant == nil && !reflect.DeepEqual(got.r, want.r) {
			t.Fatalf("by seeking %+v, full pass %+v", got.r, want.r)
		}
	})
}
