// Package attach speaks HotSpot's dynamic attach protocol, the one jcmd and
// jattach use, so that sparkdx can run diagnostic commands (JFR.start,
// JFR.dump, GC.heap_dump...) in a running JVM with no JDK tool on the node
// and no agent in the JVM.
//
// On Linux the JVM starts its attach listener lazily: a client creates the
// file .attach_pid<pid> in the JVM's working directory (or its /tmp) and
// sends SIGQUIT; the JVM then listens on the Unix socket /tmp/.java_pid<pid>.
// A request is protocol version "1", a command and three arguments, each
// NUL-terminated; the answer is a decimal result code on the first line and
// the command's output up to the end of the stream. For a JVM in a
// container, <pid> is its pid in its own namespace and /tmp is its own,
// seen from the host as /proc/<pid>/root/tmp. The JVM answers only peers
// with its effective uid and gid, or root.
package attach

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sparkdx/sparkdx/internal/jvm/hsperf"
)

// Errors Open and Exec wrap, for errors.Is.
var (
	// ErrDisabled: the JVM runs with -XX:+DisableAttachMechanism.
	ErrDisabled = errors.New("the JVM disallows attach (-XX:+DisableAttachMechanism)")
	// ErrNoListener: the JVM did not open its socket after SIGQUIT.
	ErrNoListener = errors.New("the JVM opened no attach socket after SIGQUIT")
	// ErrNotJVM: the process has no libjvm.so mapped (hsperf's error, so
	// that errors.Is answers the same for both packages).
	ErrNotJVM = hsperf.ErrNotJVM
)

// CommandError is a JVM's refusal of a command: a non-zero result code and
// what it printed (usually the exception's message).
type CommandError struct {
	Command string
	Code    int
	Output  string
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s: result %d: %s", e.Command, e.Code, strings.TrimSpace(e.Output))
}

// commandTimeout bounds a command when the caller's context has no
// deadline.
const commandTimeout = 2 * time.Minute

// Config says where /proc is and how long to wait.
type Config struct {
	ProcRoot string        // default "/proc"
	Timeout  time.Duration // for the listener to start; default 10s

}

// VM is one JVM to attach to. It holds no connection: HotSpot answers one
// command per connection.
type VM struct {
	PID      int // on the host
	NSPID    int // in the JVM's own pid namespace
	UID, GID int // the JVM's effective ids, as the host sees them
	pidDir   string
	timeout  time.Duration
}

// Open finds process pid and checks that it is a JVM that allows attach.
// It changes nothing in the JVM.
func Open(cfg Config, pid int) (*VM, error) {
	if cfg.ProcRoot == "" {
		cfg.ProcRoot = "/proc"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	pidDir := filepath.Join(cfg.ProcRoot, strconv.Itoa(pid))
	status, err := os.ReadFile(filepath.Join(pidDir, "status"))
	if err != nil {
		return nil, fmt.Errorf("attach: pid %d: %w", pid, err)
	}
	fi, err := os.Stat(pidDir)
	if err != nil {
		return nil, fmt.Errorf("attach: pid %d: %w", pid, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("attach: pid %d: no owner for %s", pid, pidDir)
	}
	vm := &VM{PID: pid, NSPID: hsperf.InnermostPID(status, pid), UID: int(st.Uid), GID: int(st.Gid),
		pidDir: pidDir, timeout: cfg.Timeout}
	if hsperf.NotJVM(pidDir) {
		return nil, fmt.Errorf("attach: pid %d: %w", pid, ErrNotJVM)
	}
	if err := vm.allowed(cfg.ProcRoot); err != nil {
		return nil, err
	}
	return vm, nil
}

// allowed reads the JVM's sun.rt.jvmCapabilities counter, whose first
// character is '1' when attach is supported: the JDK's own tools list a
// JVM as attachable by it. A JVM without hsperfdata (-XX:-UsePerfData)
// passes; then only the missing socket will tell.
func (v *VM) allowed(procRoot string) error {
	path, err := hsperf.FindFile(procRoot, v.PID)
	if err != nil {
		return nil
	}
	snap, err := hsperf.ReadFile(path)
	if err != nil {
		return nil
	}
	if caps, ok := snap.String("sun.rt.jvmCapabilities"); ok && caps != "" && caps[0] == '0' {
		return fmt.Errorf("attach: pid %d: %w", v.PID, ErrDisabled)
	}
	return nil
}

// tmp is the JVM's /tmp as the host sees it.
func (v *VM) tmp() string { return filepath.Join(v.pidDir, "root", "tmp") }

func (v *VM) socketPath() string {
	return filepath.Join(v.tmp(), ".java_pid"+strconv.Itoa(v.NSPID))
}

// Exec runs one attach operation (cmd: "jcmd", "properties", "threaddump",
// ...) with at most three arguments and returns its output. A non-zero
// result code is a *CommandError.
func (v *VM) Exec(ctx context.Context, cmd string, args ...string) (string, error) {
	if len(args) > 3 {
		return "", fmt.Errorf("attach: %s: %d arguments, protocol 1 carries 3", cmd, len(args))
	}
	if err := v.start(ctx); err != nil {
		return "", err
	}
	// A heap dump can take minutes, and starting JFR seconds on a busy
	// node: the caller's deadline, when it has one, rules the command.
	deadline := time.Now().Add(commandTimeout)
	if d, ok := ctx.Deadline(); ok {
		deadline = d
	}
	conn, err := v.dial()
	if err != nil {
		return "", fmt.Errorf("attach: pid %d: connect %s: %w", v.PID, v.socketPath(), err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if err := conn.SetDeadline(deadline); err != nil {
		return "", fmt.Errorf("attach: pid %d: %w", v.PID, err)
	}
	if _, err := conn.Write(request(cmd, args)); err != nil {
		return "", fmt.Errorf("attach: pid %d: send %s: %w", v.PID, cmd, err)
	}
	out, err := readResponse(conn, cmd)
	if err != nil {
		return out, fmt.Errorf("attach: pid %d: %w", v.PID, err)
	}
	return out, nil
}

// Jcmd runs a diagnostic command line as `jcmd PID LINE` does
// ("JFR.start name=x settings=profile", "GC.heap_dump /tmp/h.hprof").
// Paths in it are the JVM's: inside its container, written as its user.
func (v *VM) Jcmd(ctx context.Context, line string) (string, error) {
	return v.Exec(ctx, "jcmd", line)
}
