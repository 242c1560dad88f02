package hprof

import (
	"math/rand/v2"
	"testing"
)

// TestFifo checks the chunked queue against a slice through runs of
// pushes and pops across chunk boundaries, emptied and refilled.
func TestFifo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q fifo
	var model []uint32
	next := uint32(0)
	for round := 0; round < 200; round++ {
		for range rng.IntN(3 * fifoChunk / 2) {
			q.push(next)
			model = append(model, next)
			next++
		}
		for k := rng.IntN(len(model) + 1); k > 0; k-- {
			if got, want := q.pop(), model[0]; got != want {
				t.Fatalf("round %d: popped %d, want %d", round, got, want)
			}
			model = model[1:]
		}
		if q.len() != len(model) {
			t.Fatalf("round %d: len %d, want %d", round, q.len(), len(model))
		}
	}
	if len(q.chunks) > len(model)/fifoChunk+2 {
		t.Errorf("%d chunks held for %d values", len(q.chunks), len(model))
	}
}
