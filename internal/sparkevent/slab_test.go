package sparkevent

import "testing"

// TestSlab: values come back zeroed, earlier pointers stay valid while the
// slab grows over several blocks, and reset reuses the same memory.
func TestSlab(t *testing.T) {
	var s slab[TaskEnd]
	var ptrs []*TaskEnd
	firstRoundBlocks := 0
	for round := range 2 {
		ptrs = ptrs[:0]
		for i := range 3*slabMaxBlock + 3 {
			p := s.next()
			if p.StageID != 0 {
				t.Fatalf("round %d value %d: got StageID %d, want a zeroed value", round, i, p.StageID)
			}
			p.StageID = i + 1
			ptrs = append(ptrs, p)
		}
		for i, p := range ptrs {
			if p.StageID != i+1 {
				t.Fatalf("round %d value %d: got StageID %d, want %d", round, i, p.StageID, i+1)
			}
		}
		if round == 0 {
			firstRoundBlocks = len(s.blocks)
		} else if len(s.blocks) != firstRoundBlocks {
			t.Errorf("got %d blocks after a second round, want the %d of the first", len(s.blocks), firstRoundBlocks)
		}
		s.reset()
		if p := s.next(); p != ptrs[0] {
			t.Errorf("round %d: after reset got %p, want the first value %p again", round, p, ptrs[0])
		}
		s.reset()
	}
	if got := len(s.blocks[0]); got != slabFirstBlock {
		t.Errorf("got a first block of %d values, want %d", got, slabFirstBlock)
	}
}
