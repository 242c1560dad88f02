package attach

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// openInRoot opens path, absolute in the JVM's file system, resolved
// inside the JVM's root (/proc/<pid>/root): a symbolic link in it, which
// the JVM's user may plant, cannot lead out of the container into the
// host's files, however it is written. The last component is never
// followed.
func (v *VM) openInRoot(path string, flags int, mode uint32) (*os.File, error) {
	root, err := os.Open(filepath.Join(v.pidDir, "root"))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	rel := strings.TrimLeft(filepath.Clean("/"+path), "/")
	how := &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW), Mode: uint64(mode),
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(int(root.Fd()), rel, how)
	if errors.Is(err, unix.ENOSYS) {
		// Kernels before 5.6: no link is followed anywhere in the path.
		how.Resolve = 0
		fd, err = unix.Openat2(int(root.Fd()), rel, how)
		if errors.Is(err, unix.ENOSYS) {
			return nil, fmt.Errorf("open %s in pid %d's root: kernel without openat2", path, v.PID)
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadFile reads a regular file of the JVM's file system (a recording or
// a heap dump the JVM wrote), at most limit bytes.
func (v *VM) ReadFile(path string, limit int64) ([]byte, error) {
	f, err := v.openInRoot(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("attach: pid %d: %w", v.PID, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("attach: pid %d: %w", v.PID, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, fmt.Errorf("attach: pid %d: %s is a %s of %d bytes; want a regular file of at most %d", v.PID, path, fi.Mode().Type(), fi.Size(), limit)
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("attach: pid %d: read %s: %w", v.PID, path, err)
	}
	return b, nil
}

// Remove deletes a file of the JVM's file system, resolving its directory
// inside the JVM's root.
func (v *VM) Remove(path string) error {
	dir, err := v.openInRoot(filepath.Dir(path), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return fmt.Errorf("attach: pid %d: %w", v.PID, err)
	}
	defer dir.Close()
	if err := unix.Unlinkat(int(dir.Fd()), filepath.Base(path), 0); err != nil {
		return fmt.Errorf("attach: pid %d: remove %s: %w", v.PID, path, err)
	}
	return nil
}
