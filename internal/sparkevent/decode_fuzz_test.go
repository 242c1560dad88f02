package sparkevent

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// fuzzSeeds adds sparktest's seed lines: one short line per event kind of
// some shared logs.
func fuzzSeeds(f *testing.F) {
	for _, ln := range sparktest.SeedLines(f) {
		f.Add(ln)
	}
}

// FuzzDecodeLine: no input may panic the decoder. (FuzzApply, beside the
// replay, applies what it decodes.)
func FuzzDecodeLine(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		NewDecoder().DecodeLine(line)
	})
}
