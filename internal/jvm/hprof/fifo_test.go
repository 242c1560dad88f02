package hprof

import (
	"math/rand/v2"
	"testing"
)

// TestFifo checks the queue against a slice through runs of pushes and
// pops across chunk boundaries, emptied and refilled, holding at most two
// chunks in memory however long it gets.
func TestFifo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tmp := &tempFiles{dir: t.TempDir()}
	defer tmp.close()
	q, err := newFifo(tmp)
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	var model []uint32
	next := uint32(0)
	for round := 0; round < 200; round++ {
		for range rng.IntN(5 * fifoChunk) {
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
		longest = max(longest, len(model))
		if held := cap(q.head) + cap(q.tail); held > 2*fifoChunk {
			t.Fatalf("round %d: %d values held in memory for %d queued", round, held, len(model))
		}
	}
	if longest < 4*fifoChunk {
		t.Errorf("the queue never got longer than %d values: the file was not used", longest)
	}
	if err := q.close(); err != nil {
		t.Error(err)
	}
}
