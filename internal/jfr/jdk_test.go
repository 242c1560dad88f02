package jfr

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/jvm/attach"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// record runs testdata/Work.java, records it for d through the attach
// protocol with the JDK's profile settings and returns the file.
func record(t *testing.T, d time.Duration) string {
	t.Helper()
	javac, java := sparktest.Program(t, "javac"), sparktest.Program(t, "java")
	dir := t.TempDir()
	if err := sparktest.CompileJava(javac, dir, "testdata/Work.java"); err != nil {
		t.Fatal(err)
	}
	j := sparktest.StartJVM(t, []string{java, "-Xmx128m", "-cp", dir, "Work"})
	j.Expect(t, "ready")
	vm, err := attach.Open(attach.Config{}, j.PID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	file := filepath.Join(dir, "work.jfr")
	if out, err := vm.Jcmd(ctx, "JFR.start name=t settings=profile"); err != nil {
		t.Fatalf("JFR.start: %v\n%s", err, out)
	}
	time.Sleep(d)
	for _, line := range []string{"JFR.dump name=t filename=" + file, "JFR.stop name=t"} {
		if out, err := vm.Jcmd(ctx, line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	return file
}

// jdkEvent is what `jfr print --json` shows of a sample.
type jdkEvent struct {
	Type   string `json:"type"`
	Values struct {
		StartTime     string     `json:"startTime"`
		SampledThread *jdkThread `json:"sampledThread"`
		EventThread   *jdkThread `json:"eventThread"`
		State         string     `json:"state"`
		Weight        int64      `json:"weight"`
		ObjectClass   *struct {
			Name string `json:"name"`
		} `json:"objectClass"`
		StackTrace *struct {
			Truncated bool `json:"truncated"`
			Frames    []struct {
				Method struct {
					Type struct {
						Name string `json:"name"`
					} `json:"type"`
					Name       string `json:"name"`
					Descriptor string `json:"descriptor"`
				} `json:"method"`
				LineNumber    int64  `json:"lineNumber"`
				BytecodeIndex int64  `json:"bytecodeIndex"`
				Type          string `json:"type"`
			} `json:"frames"`
		} `json:"stackTrace"`
	} `json:"values"`
}

type jdkThread struct {
	OSName       string `json:"osName"`
	OSThreadID   int64  `json:"osThreadId"`
	JavaName     string `json:"javaName"`
	JavaThreadID int64  `json:"javaThreadId"`
}

// TestLiveAgreesWithJDK records a real JVM and checks every kept sample
// against the JDK's own reader, `jfr print --json`: type, time, thread,
// state, weight, class and every frame of every stack.
func TestLiveAgreesWithJDK(t *testing.T) {
	jfrTool := sparktest.Program(t, "jfr")
	file := record(t, 3*time.Second)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(jfrTool, "print", "--json", "--stack-depth", "100000",
		"--events", ExecutionSample+","+NativeMethodSample+","+ObjectAllocationSample, file).Output()
	if err != nil {
		t.Fatalf("jfr print: %v", err)
	}
	var doc struct {
		Recording struct {
			Events []jdkEvent `json:"events"`
		} `json:"recording"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("jfr print --json: %v", err)
	}
	want := map[string]int{}
	for _, e := range doc.Recording.Events {
		want[jdkKey(t, e)]++
	}
	got := map[string]int{}
	types := map[string]int{}
	for _, s := range rec.Samples {
		got[ourKey(s)]++
		types[s.Type]++
	}
	if len(rec.Samples) != len(doc.Recording.Events) {
		t.Errorf("got %d samples, jfr print has %d", len(rec.Samples), len(doc.Recording.Events))
	}
	bad := 0
	for k, n := range want {
		if got[k] != n && bad < 3 {
			bad++
			t.Errorf("jfr print has %d of\n%s\nwe have %d", n, k, got[k])
		}
	}
	for _, typ := range []string{ExecutionSample, NativeMethodSample, ObjectAllocationSample} {
		if types[typ] == 0 {
			t.Errorf("no %s in the recording: the comparison does not cover it", typ)
		}
	}
	t.Logf("%d samples (%v) agree with jfr print; %d bytes, %d chunks", len(rec.Samples), types, len(data), rec.Chunks)
}

func jdkKey(t *testing.T, e jdkEvent) string {
	v := e.Values
	ts, err := time.Parse(time.RFC3339Nano, v.StartTime)
	if err != nil {
		t.Fatalf("jfr print startTime %q: %v", v.StartTime, err)
	}
	var b strings.Builder
	th := v.SampledThread
	if th == nil {
		th = v.EventThread
	}
	b.WriteString(e.Type + " " + ts.UTC().Format(time.RFC3339Nano) + " " + v.State)
	if th != nil {
		b.WriteString(" " + th.JavaName + "|" + th.OSName + "|" + itoa(th.JavaThreadID) + "|" + itoa(th.OSThreadID))
	}
	if v.ObjectClass != nil {
		b.WriteString(" " + dotted(v.ObjectClass.Name) + " " + itoa(v.Weight))
	}
	if st := v.StackTrace; st != nil {
		if st.Truncated {
			b.WriteString(" truncated")
		}
		for _, f := range st.Frames {
			b.WriteString("\n  " + dotted(f.Method.Type.Name) + "." + f.Method.Name + f.Method.Descriptor + ":" + itoa(f.LineNumber) + "@" + itoa(f.BytecodeIndex) + " " + f.Type)
		}
	}
	return b.String()
}

func ourKey(s Sample) string {
	var b strings.Builder
	b.WriteString(s.Type + " " + s.Time.Format(time.RFC3339Nano) + " " + s.State)
	if th := s.Thread; th != nil {
		b.WriteString(" " + th.JavaName + "|" + th.OSName + "|" + itoa(th.JavaID) + "|" + itoa(th.OSID))
	}
	if s.Type == ObjectAllocationSample {
		b.WriteString(" " + s.ObjectClass + " " + itoa(s.Weight))
	}
	if st := s.Stack; st != nil {
		if st.Truncated {
			b.WriteString(" truncated")
		}
		for _, f := range st.Frames {
			b.WriteString("\n  " + f.Class + "." + f.Method + f.Descriptor + ":" + itoa(f.Line) + "@" + itoa(f.BCI) + " " + f.Type)
		}
	}
	return b.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
