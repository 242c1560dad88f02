package attach

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"syscall"
)

// dial connects to the JVM's socket. A root client connects with the JVM's
// ids when they differ: the JVM reads its peer's ids from the socket
// (SO_PEERCRED), and in a user namespace the host's root is not the
// container's. Linux keeps credentials per thread, so only a locked thread
// takes the JVM's ids, through raw syscalls that Go does not spread to its
// other threads; the goroutine ends without unlocking, which makes the
// runtime discard that thread rather than reuse it.
func (v *VM) dial() (net.Conn, error) {
	if os.Geteuid() != 0 || (v.UID == 0 && v.GID == 0) {
		return net.Dial("unix", v.socketPath())
	}
	type result struct {
		fd  int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		fd, err := v.connectAs()
		ch <- result{fd, err}
	}()
	r := <-ch
	if r.err != nil {
		return nil, r.err
	}
	f := os.NewFile(uintptr(r.fd), v.socketPath())
	defer f.Close()
	return net.FileConn(f)
}

// connectAs runs on a locked thread it leaves changed.
func (v *VM) connectAs() (int, error) {
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, ^uintptr(0), uintptr(v.GID), ^uintptr(0)); e != 0 {
		return -1, fmt.Errorf("setresgid %d: %w", v.GID, e)
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, ^uintptr(0), uintptr(v.UID), ^uintptr(0)); e != 0 {
		return -1, fmt.Errorf("setresuid %d: %w", v.UID, e)
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: v.socketPath()}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}
