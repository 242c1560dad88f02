package model

// IndexSet is a set of task indexes (a stage's, or a job's keyed by
// stage id << 32 | index) as a bitmap in blocks of 4,096: Spark's
// numCompletedIndices needs only how many there are, and a map entry per
// finished task was a tenth of a running application's memory.
type IndexSet struct {
	blocks map[int64]*[indexBlockWords]uint64
	n      int
}

const (
	indexBlockBits  = 4096
	indexBlockWords = indexBlockBits / 64
)

// Add puts i in the set.
func (s *IndexSet) Add(i int64) {
	if s.blocks == nil {
		s.blocks = map[int64]*[indexBlockWords]uint64{}
	}
	k, bit := i/indexBlockBits, i%indexBlockBits
	if bit < 0 { // floor division, so that a negative index has a block of its own
		k, bit = k-1, bit+indexBlockBits
	}
	b := s.blocks[k]
	if b == nil {
		b = new([indexBlockWords]uint64)
		s.blocks[k] = b
	}
	w, m := bit/64, uint64(1)<<(bit%64)
	if b[w]&m == 0 {
		b[w] |= m
		s.n++
	}
}

// Len is the number of indexes in the set.
func (s *IndexSet) Len() int { return s.n }

// Clone returns a copy of the set that shares nothing with it.
func (s *IndexSet) Clone() IndexSet {
	c := IndexSet{n: s.n}
	if s.blocks != nil {
		c.blocks = make(map[int64]*[indexBlockWords]uint64, len(s.blocks))
		for k, b := range s.blocks {
			nb := *b
			c.blocks[k] = &nb
		}
	}
	return c
}
