//go:build !unix

package hprof

import (
	"errors"
	"os"
)

// mapFile cannot map here: views are loaded instead.
func mapFile(f *os.File, n int) ([]byte, error) { return nil, errors.New("no mmap") }

func unmap(m []byte) {}
