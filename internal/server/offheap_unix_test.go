//go:build unix

package server

import (
	"syscall"
	"testing"
)

// offHeap copies bufs into one anonymous mapping, outside the Go heap, so
// that a benchmark's own data does not count in the live heap the GC paces
// itself on; nil stays nil. The mapping is released when b ends.
func offHeap(b testing.TB, bufs [][]byte) [][]byte {
	b.Helper()
	size := 0
	for _, p := range bufs {
		size += len(p)
	}
	if size == 0 {
		return bufs
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		b.Fatalf("map %d bytes: %v", size, err)
	}
	whole := mem
	b.Cleanup(func() {
		if err := syscall.Munmap(whole); err != nil {
			b.Errorf("unmap %d bytes: %v", size, err)
		}
	})
	out := make([][]byte, len(bufs))
	for i, p := range bufs {
		if p == nil {
			continue
		}
		n := copy(mem, p)
		out[i], mem = mem[:n:n], mem[n:]
	}
	return out
}
