//go:build !linux

package attach

import (
	"fmt"
	"os"
	"path/filepath"
)

func (v *VM) openInRoot(path string, flags int, mode uint32) (*os.File, error) {
	return os.OpenFile(filepath.Join(v.pidDir, "root", path), flags, os.FileMode(mode))
}

// ReadFile reads a regular file of the JVM's file system, at most limit bytes.
func (v *VM) ReadFile(path string, limit int64) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(v.pidDir, "root", path))
	if err == nil && int64(len(b)) > limit {
		return nil, fmt.Errorf("attach: pid %d: %s is over %d bytes", v.PID, path, limit)
	}
	return b, err
}

// Remove deletes a file of the JVM's file system.
func (v *VM) Remove(path string) error { return os.Remove(filepath.Join(v.pidDir, "root", path)) }
