package jfr

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func readWork(t testing.TB) []byte {
	data, err := os.ReadFile("testdata/work.jfr")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParseWork: the counts `jfr summary` gives for the committed
// recording, and the frames the program spends its time in.
func TestParseWork(t *testing.T) {
	rec, err := Parse(readWork(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	top := map[string]map[string]int{}
	onTasks := map[string]int{}
	for _, s := range rec.Samples {
		got[s.Type]++
		if s.Thread == nil {
			t.Fatalf("%s at %s: no thread", s.Type, s.Time)
		}
		if s.Stack == nil || len(s.Stack.Frames) == 0 {
			continue // as jfr print shows: the JVM records some allocations without a stack
		}
		if top[s.Type] == nil {
			top[s.Type] = map[string]int{}
		}
		if (s.Type == ExecutionSample && strings.HasSuffix(s.Thread.JavaName, "(TID 4)")) ||
			(s.Type == ObjectAllocationSample && strings.HasSuffix(s.Thread.JavaName, "(TID 7)")) {
			top[s.Type][s.Stack.Frames[0].Name()]++
			onTasks[s.Type]++
		}
		if s.Type == ObjectAllocationSample && (s.Weight <= 0 || s.ObjectClass == "") {
			t.Errorf("allocation sample with weight %d of class %q", s.Weight, s.ObjectClass)
		}
	}
	for typ, n := range map[string]int{ExecutionSample: 966, NativeMethodSample: 858, ObjectAllocationSample: 1775} {
		if got[typ] != n {
			t.Errorf("got %d %s, want %d (jfr summary)", got[typ], typ, n)
		}
	}
	if rec.Chunks != 1 || !rec.End.After(rec.Start) {
		t.Errorf("got %d chunks from %s to %s, want 1 with time passing", rec.Chunks, rec.Start, rec.End)
	}
	for typ, frame := range map[string]string{ExecutionSample: "Work.spin", ObjectAllocationSample: "Work.allocate"} {
		if n := top[typ][frame]; n*2 <= onTasks[typ] {
			t.Errorf("%s: %d of %d on the task's thread in %s (%v), want most", typ, n, onTasks[typ], frame, top[typ])
		}
	}
}

// TestParseCut: a recording cut anywhere is an error naming an offset,
// never a panic or a silent partial answer.
func TestParseCut(t *testing.T) {
	data := readWork(t)
	for n := 0; n < len(data); n += 499 {
		if _, err := Parse(data[:n]); err == nil {
			t.Fatalf("cut at %d of %d: got no error", n, len(data))
		}
	}
	at := fmt.Sprintf("offset %d", len(data))
	if _, err := Parse(append(append([]byte{}, data...), data[:100]...)); err == nil || !strings.Contains(err.Error(), at) {
		t.Errorf("a second chunk cut short: got %v, want an error at %s", err, at)
	}
}

func BenchmarkParse(b *testing.B) {
	data := readWork(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
