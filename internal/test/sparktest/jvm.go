package sparktest

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CompileJava compiles with javac every .java file in srcs (files, or
// directories walked for them) into the class directory dir.
func CompileJava(javac, dir string, srcs ...string) error {
	var files []string
	for _, src := range srcs {
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	out, err := exec.Command(javac, append([]string{"-d", dir}, files...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("javac: %v\n%s", err, out)
	}
	return nil
}

// JVM is a running test program, usually java behind an optional wrapper,
// that takes commands on stdin and answers line by line on stdout.
type JVM struct {
	Cmd   *exec.Cmd
	PID   int // on the host
	Stdin io.WriteCloser
	Lines *bufio.Scanner // stdout
}

// StartJVM starts argv with env added to this process's environment and
// its stderr on ours, and returns at once. When the test ends its stdin is
// closed (the test programs exit then) and it is killed if it has not
// exited 10s later.
func StartJVM(t testing.TB, argv []string, env ...string) *JVM {
	t.Helper()
	Live(t)
	cmd := exec.Command(argv[0], argv[1:]...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return &JVM{Cmd: cmd, PID: cmd.Process.Pid, Stdin: stdin, Lines: bufio.NewScanner(stdout)}
}

// Expect reads stdout up to a line equal to want; the test fails if the
// program exits first.
func (j *JVM) Expect(t testing.TB, want string) {
	t.Helper()
	for j.Lines.Scan() {
		if j.Lines.Text() == want {
			return
		}
	}
	t.Fatalf("pid %d: exited before printing %q", j.PID, want)
}
