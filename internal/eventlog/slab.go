package eventlog

// slab hands out zeroed values from fixed-size blocks that are reused after
// reset. Task events are most of a log and replay copies what it keeps out
// of them, so allocating each one made half of a replay's allocations
// (26k of 56k per run of the big test log) for memory that died as soon as
// its chunk was applied. Blocks never grow in place, so pointers handed out
// stay valid until reset.
type slab[T any] struct {
	blocks [][]T
	n      int // values handed out since reset
}

const slabBlock = 256

func (s *slab[T]) next() *T {
	b, i := s.n/slabBlock, s.n%slabBlock
	if b == len(s.blocks) {
		s.blocks = append(s.blocks, make([]T, slabBlock))
	}
	s.n++
	p := &s.blocks[b][i]
	var zero T
	*p = zero
	return p
}

// reset makes every value free for reuse; the caller must hold no pointer
// handed out before.
func (s *slab[T]) reset() { s.n = 0 }

// taskSlab holds the task events of one chunk.
type taskSlab struct {
	ends   slab[EventTaskEnd]
	starts slab[EventTaskStart]
}

func (s *taskSlab) reset() {
	s.ends.reset()
	s.starts.reset()
}

// newTaskEnd returns an event from the decoder's slab, if it has one.
func (d *Decoder) newTaskEnd() *EventTaskEnd {
	if d.slab == nil {
		return &EventTaskEnd{}
	}
	return d.slab.ends.next()
}

func (d *Decoder) newTaskStart() *EventTaskStart {
	if d.slab == nil {
		return &EventTaskStart{}
	}
	return d.slab.starts.next()
}
