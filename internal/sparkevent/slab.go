package sparkevent

// slab hands out zeroed values from blocks that are reused after reset.
// Task events are most of a log and replay copies what it keeps out of
// them, so allocating each one made half of a replay's allocations (26k of
// 56k per run of the big test log) for memory that died as soon as its
// chunk was applied. Blocks never grow in place, so pointers handed out
// stay valid until reset. Blocks start small and double, so a chunk of a
// few lines (a tailed log's latest bytes) does not pay for a full block.
type slab[T any] struct {
	blocks [][]T
	b, i   int // the next value is blocks[b][i]
}

const (
	slabFirstBlock = 8
	slabMaxBlock   = 256
)

func (s *slab[T]) next() *T {
	if s.b < len(s.blocks) && s.i == len(s.blocks[s.b]) {
		s.b, s.i = s.b+1, 0
	}
	if s.b == len(s.blocks) {
		n := slabFirstBlock
		if s.b > 0 {
			n = min(2*len(s.blocks[s.b-1]), slabMaxBlock)
		}
		s.blocks = append(s.blocks, make([]T, n))
	}
	p := &s.blocks[s.b][s.i]
	s.i++
	var zero T
	*p = zero
	return p
}

// reset makes every value free for reuse; the caller must hold no pointer
// handed out before.
func (s *slab[T]) reset() { s.b, s.i = 0, 0 }

// TaskSlab holds the task events a Decoder decodes while it uses the slab
// (Decoder.UseSlab): a replay gives it one per chunk of lines, whose events
// live until the chunk is applied.
type TaskSlab struct {
	ends   slab[TaskEnd]
	starts slab[TaskStart]
}

// Reset makes the slab's events free for reuse; the caller must hold none
// of the events it handed out before.
func (s *TaskSlab) Reset() {
	s.ends.reset()
	s.starts.reset()
}

// UseSlab makes the decoder take the task events it returns from s, until
// it is called again; nil means a new allocation per event.
func (d *Decoder) UseSlab(s *TaskSlab) { d.slab = s }

// newTaskEnd returns an event from the decoder's slab, if it has one.
func (d *Decoder) newTaskEnd() *TaskEnd {
	if d.slab == nil {
		return &TaskEnd{}
	}
	return d.slab.ends.next()
}

func (d *Decoder) newTaskStart() *TaskStart {
	if d.slab == nil {
		return &TaskStart{}
	}
	return d.slab.starts.next()
}
