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
	// OnFlush, when set (before Run), hears how each append went: a
	// table that fails (a full disk, a bucket gone) must show in serve's
	// /healthz and /metrics.
	OnFlush func(error)

	mu      sync.Mutex
	buf     []T
	dropped int64 // rows dropped past maxBuffered while appends failed
}

// bufferedBatches is how many batches of rows a Batcher keeps while its
// appends fail; past them the oldest rows go (Dropped counts them), so a
// table that stays down costs bounded memory.
const bufferedBatches = 10

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
	b.trimLocked()
	full := len(b.buf) >= b.maxRows
	b.mu.Unlock()
	if full {
		return b.Flush(ctx)
	}
	return nil
}

// trimLocked drops the oldest rows past bufferedBatches batches.
func (b *Batcher[T]) trimLocked() {
	if over := len(b.buf) - bufferedBatches*b.maxRows; over > 0 {
		b.dropped += int64(over)
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
}

// Dropped is how many rows were dropped while appends failed.
func (b *Batcher[T]) Dropped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
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
			b.trimLocked()
			b.mu.Unlock()
			b.heard(err)
			return err
		}
		b.heard(nil)
		rows = rows[n:]
	}
	return nil
}

func (b *Batcher[T]) heard(err error) {
	if b.OnFlush != nil {
		b.OnFlush(err)
	}
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
