package attach

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// workJVM compiles internal/jfr/testdata/Work.java and runs it with flags, as user uid
// (through setpriv) when uid >= 0, and returns its pid once it is ready.
func workJVM(t *testing.T, uid int, flags ...string) int {
	t.Helper()
	javac, java := sparktest.Program(t, "javac"), sparktest.Program(t, "java")
	// Not t.TempDir: its parent is closed to the other user of TestLiveOtherUser.
	dir, err := os.MkdirTemp("", "attach-idle-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sparktest.CompileJava(javac, dir, "../../jfr/testdata/Work.java"); err != nil {
		t.Fatal(err)
	}
	argv := append(append([]string{java, "-Xmx64m"}, flags...), "-cp", dir, "Work")
	if uid >= 0 {
		id := strconv.Itoa(uid)
		argv = append([]string{sparktest.Program(t, "setpriv"), "--reuid", id, "--regid", id, "--clear-groups"}, argv...)
	}
	j := sparktest.StartJVM(t, argv)
	j.Expect(t, "ready")
	return j.PID
}

// TestLiveJcmd attaches to a fresh JVM (its listener not yet started),
// runs commands, records and dumps a flight recording and a heap dump.
func TestLiveJcmd(t *testing.T) {
	pid := workJVM(t, -1)
	ctx := context.Background()
	vm, err := Open(Config{}, pid)
	if err != nil {
		t.Fatal(err)
	}
	if vm.listening() {
		t.Fatalf("pid %d listens before any attach: the test would not try the handshake", pid)
	}
	out, err := vm.Jcmd(ctx, "VM.version")
	if err != nil || !strings.Contains(out, "JDK ") {
		t.Fatalf("VM.version: got %q, %v; want the JDK's version", out, err)
	}
	// A second command reuses the running listener.
	if out, err := vm.Exec(ctx, "properties"); err != nil || !strings.Contains(out, "java.home=") {
		t.Errorf("properties: got %.80q, %v; want java.home=", out, err)
	}
	_, err = vm.Jcmd(ctx, "No.such_command")
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Code != -1 || !strings.Contains(ce.Output, "Unknown diagnostic command") {
		t.Errorf("unknown command: got %v, want a CommandError -1 with the JVM's message", err)
	}

	dir := t.TempDir()
	jfr, hprof := filepath.Join(dir, "r.jfr"), filepath.Join(dir, "h.hprof")
	for _, line := range []string{"JFR.start name=t settings=profile", "JFR.dump name=t filename=" + jfr, "JFR.stop name=t", "GC.heap_dump " + hprof} {
		if out, err := vm.Jcmd(ctx, line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	for _, f := range []string{jfr, hprof} {
		if fi, err := os.Stat(f); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v, want a file written by the JVM", f, err)
		}
	}
}

// TestLiveOtherUser: root attaches to a JVM of another user, whose
// listener accepts only its own ids.
func TestLiveOtherUser(t *testing.T) {
	sparktest.Live(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a JVM as another user")
	}
	pid := workJVM(t, 65534)
	vm, err := Open(Config{}, pid)
	if err != nil {
		t.Fatal(err)
	}
	if vm.UID != 65534 {
		t.Fatalf("got uid %d, want 65534", vm.UID)
	}
	if out, err := vm.Jcmd(context.Background(), "Thread.print"); err != nil || !strings.Contains(out, "Executor task launch worker") {
		t.Errorf("Thread.print: got %.200q, %v; want the worker thread", out, err)
	}
	if os.Geteuid() != 0 {
		t.Errorf("after attaching as uid 65534 this process runs as %d, want root still", os.Geteuid())
	}
}

// TestLiveDisabled: a JVM started with -XX:+DisableAttachMechanism is
// refused before any signal when its hsperfdata says so, and after the
// timeout when it has none.
func TestLiveDisabled(t *testing.T) {
	pid := workJVM(t, -1, "-XX:+DisableAttachMechanism")
	if _, err := Open(Config{}, pid); !errors.Is(err, ErrDisabled) {
		t.Errorf("Open: got %v, want ErrDisabled", err)
	}
	pid = workJVM(t, -1, "-XX:+DisableAttachMechanism", "-XX:-UsePerfData")
	vm, err := Open(Config{Timeout: 2 * time.Second}, pid)
	if err != nil {
		t.Fatalf("Open without hsperfdata: %v, want nil (nothing tells yet)", err)
	}
	if _, err := vm.Jcmd(context.Background(), "VM.version"); !errors.Is(err, ErrNoListener) || !strings.Contains(err.Error(), "DisableAttachMechanism") {
		t.Errorf("Jcmd: got %v, want ErrNoListener naming DisableAttachMechanism", err)
	}
}

func TestOpenNotJVM(t *testing.T) {
	if _, err := Open(Config{}, os.Getpid()); !errors.Is(err, ErrNotJVM) {
		t.Errorf("Open(the test itself): got %v, want ErrNotJVM", err)
	}
}
