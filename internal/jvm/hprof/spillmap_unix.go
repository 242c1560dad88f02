//go:build unix

package hprof

import (
	"os"
	"syscall"
)

// mapFile maps the first n bytes of f read only.
func mapFile(f *os.File, n int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmap(m []byte) { _ = syscall.Munmap(m) }
