// Package rawfile reads small files that are read again and again — /proc,
// cgroup and hsperfdata files, many per second in the agent — into a
// buffer the caller keeps, with the three system calls a read needs (open,
// read, close). os.Open also asks the runtime poller to take the file
// (fcntl, epoll_ctl), which for a /proc file it cannot, and os.ReadFile
// adds an fstat and a new buffer; for the agent's 300 reads a cycle that
// was a quarter of its CPU.
package rawfile

import (
	"errors"
	"os"
	"syscall"
)

// Read reads the whole file at path into buf (grown when too small) and
// returns the bytes read, buf's storage reused: keep the result and pass it
// back as buf next time. Errors are *os.PathError, so os.IsNotExist and
// errors.Is(err, fs.ErrNotExist) hold as for os.ReadFile.
func Read(path string, buf []byte) ([]byte, error) {
	fd, b, err := openRead(path, buf, 0, 0)
	if err == nil {
		syscall.Close(fd)
	}
	return b, err
}

// openRead opens path with the extra open flags and reads it whole (see
// pread, and limit there); the descriptor is the caller's to close, and
// closed already on an error.
func openRead(path string, buf []byte, limit, flags int) (int, []byte, error) {
	fd, err := open(path, flags)
	if err != nil {
		return -1, buf[:0], &os.PathError{Op: "open", Path: path, Err: err}
	}
	b, err := pread(fd, buf, limit)
	if err != nil {
		syscall.Close(fd)
		return -1, b, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return fd, b, nil
}

func open(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|flags, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
