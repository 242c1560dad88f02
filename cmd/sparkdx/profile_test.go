package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestProfileLive records internal/jfr/testdata/Work.java through the
// attach protocol. Its pooled thread runs "tasks" of stages 5 and 6 in
// turn, renamed per task as Spark's executors rename theirs; JFR keeps
// the thread's first name, so only the thread dumps taken during the
// recording can put stage 5's samples under stage 5: its stacks must go
// through Work.stageFive, stage 6's through Work.stageSix.
func TestProfileLive(t *testing.T) {
	javac, java := sparktest.Program(t, "javac"), sparktest.Program(t, "java")
	dir := t.TempDir()
	if err := sparktest.CompileJava(javac, dir, "../../internal/jfr/testdata/Work.java"); err != nil {
		t.Fatal(err)
	}
	j := sparktest.StartJVM(t, []string{java, "-Xmx128m", "-cp", dir, "Work"})
	j.Expect(t, "ready")
	saved := filepath.Join(dir, "work.jfr")
	code, out, errOut := runHeapCLI(t, "profile", "--duration", "9s", "--names-every", "200ms", "--format", "collapsed",
		"--save-jfr", saved, strconv.Itoa(j.PID))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Log(strings.TrimSpace(errOut))
	if !strings.Contains(errOut, "thread dumps took") {
		t.Errorf("stderr %q lacks the cost of the thread dumps", errOut)
	}
	for stage, want := range map[string]string{"stage 5": ";Work.stageFive;", "stage 6": ";Work.stageSix;"} {
		var in, all int64
		for line := range strings.Lines(out) {
			if !strings.HasPrefix(line, stage+";") {
				continue
			}
			n, _ := strconv.ParseInt(line[strings.LastIndexByte(line, ' ')+1:len(line)-1], 10, 64)
			all += n
			if strings.Contains(line, want) {
				in += n
			}
		}
		t.Logf("%s: %d of %d samples through %s", stage, in, all, strings.Trim(want, ";"))
		if all < 10 || in*10 < all*8 {
			t.Errorf("%s: %d of %d samples through %s, want at least 10 samples and 80%%", stage, in, all, strings.Trim(want, ";"))
		}
	}

	// The saved recording converts offline. JFR alone knows only the name
	// the pooled thread had when the recording began: all its samples
	// fall under one of the two stages.
	for _, tc := range []struct{ format, want string }{
		{"text", "stage 1 tasks:"},
		{"html", `["stage 1",`},
	} {
		code, out, errOut = runHeapCLI(t, "profile", "--format", tc.format, saved)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("profile --format %s of the saved recording: exit %d (%s), want %q:\n%.500s", tc.format, code, errOut, tc.want, out)
		}
		if tc.format == "text" && strings.Contains(out, "stage 5 tasks:") == strings.Contains(out, "stage 6 tasks:") {
			t.Errorf("JFR's own thread names give stages 5 and 6 both or neither:\n%s", out)
		}
	}
	pb := filepath.Join(dir, "cpu.pb.gz")
	if code, _, errOut = runHeapCLI(t, "profile", "--format", "pprof", "-o", pb, saved); code != 0 {
		t.Fatalf("pprof: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(pb); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("pprof file: %v, want gzip", err)
	}
}

func TestProfileUsage(t *testing.T) {
	for _, args := range [][]string{
		{"profile"},
		{"profile", "--format", "svg", "1"},
		{"profile", "--event", "wall", "1"},
		{"profile", "--duration", "-1s", "1"},
		{"profile", "/no/such/file.jfr"},
	} {
		if code, _, _ := runHeapCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
