package attach

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// start makes sure the JVM's attach listener runs: when its socket is not
// there yet, it creates the trigger file, sends SIGQUIT and waits for the
// socket. A JVM that started the listener once keeps it.
func (v *VM) start(ctx context.Context) error {
	if v.listening() {
		return nil
	}
	removeTrigger, err := v.createTrigger()
	if err != nil {
		return err
	}
	defer removeTrigger()
	if err := syscall.Kill(v.PID, syscall.SIGQUIT); err != nil {
		if errors.Is(err, syscall.EPERM) {
			return fmt.Errorf("attach: pid %d runs as uid %d: attach needs that user or root: %w", v.PID, v.UID, err)
		}
		return fmt.Errorf("attach: pid %d: SIGQUIT: %w", v.PID, err)
	}
	deadline := time.Now().Add(v.timeout)
	delay := 10 * time.Millisecond
	for !v.listening() {
		if time.Now().After(deadline) {
			return fmt.Errorf("attach: pid %d: %w within %s (is it started with -XX:+DisableAttachMechanism or -Xrs?)", v.PID, ErrNoListener, v.timeout)
		}
		if _, err := os.Stat(v.pidDir); err != nil {
			return fmt.Errorf("attach: pid %d exited while starting its attach listener", v.PID)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("attach: pid %d: %w", v.PID, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
	return nil
}

// listening reports whether the JVM's socket exists and is a socket owned
// by the JVM's user (HotSpot checks the same before it trusts a client).
func (v *VM) listening() bool {
	fi, err := os.Stat(v.socketPath())
	if err != nil || fi.Mode().Type() != os.ModeSocket {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == v.UID
}

// createTrigger writes .attach_pid<nspid> where the JVM looks for it: its
// working directory first, else its /tmp (resolved inside its root). The
// file is given the JVM's ids: HotSpot ignores a trigger owned by anyone
// but its user or root, and a root of the host is nobody inside a user
// namespace. It returns the function that removes the file.
func (v *VM) createTrigger() (func(), error) {
	name := ".attach_pid" + strconv.Itoa(v.NSPID)
	var errs []error
	create := func(f *os.File, err error, remove func()) (func(), bool) {
		if errors.Is(err, os.ErrExist) {
			return func() {}, true // a client before us left it; it still triggers
		}
		if err != nil {
			errs = append(errs, err)
			return nil, false
		}
		defer f.Close()
		if os.Geteuid() == 0 && (v.UID != 0 || v.GID != 0) {
			if err := f.Chown(v.UID, v.GID); err != nil {
				remove()
				errs = append(errs, err)
				return nil, false
			}
		}
		return remove, true
	}
	// The working directory: a magic link the kernel resolves; the name
	// in it is never followed.
	cwd := filepath.Join(v.pidDir, "cwd", name)
	f, err := os.OpenFile(cwd, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if remove, ok := create(f, err, func() { os.Remove(cwd) }); ok {
		return remove, nil
	}
	tmp := "/tmp/" + name
	f, err = v.openInRoot(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if remove, ok := create(f, err, func() { v.Remove(tmp) }); ok {
		return remove, nil
	}
	return nil, fmt.Errorf("attach: pid %d: create %s: %w", v.PID, name, errors.Join(errs...))
}
