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
	fd, err := open(path)
	if err != nil {
		return buf[:0], &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, max(cap(buf), 4096))...)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return buf[:0], &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

func open(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
