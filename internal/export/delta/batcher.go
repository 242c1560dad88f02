package delta

import (
	"context"
	"sync"
	"time"
)

// Batcher buffers rows for a table so that a stream of samples becomes a
// few large files instead of one per sample: it appends when MaxRows rows
// wait, and Run appends whatever waits every MaxDelay.
type Batcher[T any] struct {
	table    *Table[T]
	maxRows  int
	maxDelay time.Duration

	mu  sync.Mutex
	buf []T
}

// NewBatcher returns a batcher appending to table in batches of up to
// maxRows rows (default 10000), at least every maxDelay (default 1m) once
// Run is started.
func NewBatcher[T any](table *Table[T], maxRows int, maxDelay time.Duration) *Batcher[T] {
	if maxRows <= 0 {
		maxRows = 10000
	}
	if maxDelay <= 0 {
		maxDelay = time.Minute
	}
	return &Batcher[T]{table: table, maxRows: maxRows, maxDelay: maxDelay}
}

// Add buffers rows, appending a batch when the buffer is full.
func (b *Batcher[T]) Add(ctx context.Context, rows ...T) error {
	b.mu.Lock()
	b.buf = append(b.buf, rows...)
	full := len(b.buf) >= b.maxRows
	b.mu.Unlock()
	if full {
		return b.Flush(ctx)
	}
	return nil
}

// Pending returns how many rows wait.
func (b *Batcher[T]) Pending() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.buf)
}

// Flush appends every waiting row now. On error the rows stay buffered for
// the next flush.
func (b *Batcher[T]) Flush(ctx context.Context) error {
	b.mu.Lock()
	rows := b.buf
	b.buf = nil
	b.mu.Unlock()
	for len(rows) > 0 {
		n := min(len(rows), b.maxRows)
		if _, err := b.table.Append(ctx, rows[:n], AppendOptions{}); err != nil {
			b.mu.Lock()
			b.buf = append(rows, b.buf...)
			b.mu.Unlock()
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// Run flushes every maxDelay until ctx ends, then flushes once more with
// flushCtx (which should outlive ctx briefly) and returns that flush's
// error. A failed periodic flush keeps its rows for the next one, so the
// final flush is the one that decides whether every row landed.
func (b *Batcher[T]) Run(ctx, flushCtx context.Context) error {
	tick := time.NewTicker(b.maxDelay)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return b.Flush(flushCtx)
		case <-tick.C:
			_ = b.Flush(ctx)
		}
	}
}
