package store

import (
	"strconv"
	"sync"
	"time"
)

// WriteHealth counts the failed writes of one destination (the store, a
// Delta table) and remembers whether the last one failed, for /healthz
// ("degraded" while writes fail) and /metrics. The zero value is ready;
// it is safe for concurrent use.
type WriteHealth struct {
	mu       sync.Mutex
	failures int64
	failing  bool
	lastErr  string
	lastAt   time.Time
}

// Record notes the outcome of one write.
func (h *WriteHealth) Record(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failing = err != nil
	if err != nil {
		h.failures++
		h.lastErr, h.lastAt = err.Error(), time.Now()
	}
}

// Failures is the number of failed writes since start.
func (h *WriteHealth) Failures() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failures
}

// Problem describes the failing writes of what (a name for people), or is
// "" while the last write succeeded.
func (h *WriteHealth) Problem(what string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.failing {
		return ""
	}
	return what + " writes fail (" + strconv.FormatInt(h.failures, 10) + " since start; last at " + h.lastAt.UTC().Format(time.RFC3339) + "): " + h.lastErr
}
