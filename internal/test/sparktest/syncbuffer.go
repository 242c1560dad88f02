package sparktest

import (
	"bytes"
	"sync"
)

// SyncBuffer is a log or output that goroutines of the code under test
// (or a process's pipes) write while the test reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// size is how many bytes were written so far: a driver's progress for the
// stall watch.
func (b *SyncBuffer) size() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}
