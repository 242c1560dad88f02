package jfr

import (
	"os"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser: it must never panic, and
// what it returns must hold together.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/work.jfr"); err == nil {
		f.Add(data)
		f.Add(data[:4096])
	}
	f.Add([]byte("FLR\x00\x00\x02\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Parse(data)
		if err != nil {
			return
		}
		if rec.Chunks < 1 {
			t.Fatalf("no error and %d chunks", rec.Chunks)
		}
		for _, s := range rec.Samples {
			if s.Type != ExecutionSample && s.Type != NativeMethodSample && s.Type != ObjectAllocationSample {
				t.Fatalf("sample of type %q", s.Type)
			}
		}
	})
}
