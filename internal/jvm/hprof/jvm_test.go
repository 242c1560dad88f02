package hprof

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// jdk is one installed JDK the tests run real JVMs from.
type jdk struct {
	name string
	home string
}

// jdks returns the JDKs to test: the jcmd on PATH (JDK 17 in CI) and the
// machine's Temurin 25 (required in CI).
func jdks(t *testing.T) []jdk {
	t.Helper()
	jcmd := sparktest.Program(t, "jcmd")
	real, err := filepath.EvalSymlinks(jcmd)
	if err != nil {
		t.Fatal(err)
	}
	return []jdk{{"path", filepath.Dir(filepath.Dir(real))}, {"temurin-25", sparktest.JDK(t, "25")}}
}

// population is a running Population JVM.
type population struct {
	jdk jdk
	pid string
	cmd *exec.Cmd
}

// startPopulation compiles testdata/Population.java with the JDK's javac and
// runs it until it prints "ready PID".
func startPopulation(t *testing.T, j jdk, n int, flags ...string) *population {
	t.Helper()
	return startProgram(t, j, "Population", []string{fmt.Sprint(n)}, flags...)
}

// startProgram compiles testdata/MAIN.java and runs it until "ready PID".
func startProgram(t *testing.T, j jdk, main string, progArgs []string, flags ...string) *population {
	t.Helper()
	src, err := filepath.Abs("testdata/" + main + ".java")
	if err != nil {
		t.Fatal(err)
	}
	classes := t.TempDir()
	if out, err := exec.Command(filepath.Join(j.home, "bin", "javac"), "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	args := append(append(append([]string{}, flags...), "-cp", classes, main), progArgs...)
	cmd := exec.Command(filepath.Join(j.home, "bin", "java"), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &population{jdk: j, cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "ready" {
				ready <- f[1]
			}
		}
		close(ready)
	}()
	select {
	case pid, ok := <-ready:
		if !ok {
			t.Fatalf("java %v exited before ready: %s", flags, stderr.String())
		}
		p.pid = pid
	case <-time.After(60 * time.Second):
		t.Fatalf("java %v: no ready line after 60s: %s", flags, stderr.String())
	}
	return p
}

func (p *population) jcmd(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(p.jdk.home, "bin", "jcmd"), append([]string{p.pid}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// snapshot takes the JVM's own histogram and heap dumps of one quiescent
// heap: a first jcmd starts the attach listener (its thread object would
// otherwise appear between the two), a full GC settles the heap, then
// histogram and dumps with -all so that neither collects again.
func (p *population) snapshot(t *testing.T, dir string) (hist string, dumps []string) {
	t.Helper()
	p.jcmd(t, "VM.version")
	p.jcmd(t, "GC.run")
	hist = p.jcmd(t, "GC.class_histogram", "-all")
	plain := filepath.Join(dir, "heap.hprof")
	gz := filepath.Join(dir, "heap.hprof.gz")
	p.jcmd(t, "GC.heap_dump", "-all", plain)
	p.jcmd(t, "GC.heap_dump", "-all", "-gz=1", gz)
	return hist, []string{plain, gz}
}

func TestHistogramMatchesJVM(t *testing.T) {
	sparktest.Live(t)
	configs := []struct {
		name  string
		flags []string
		want  Layout // zero CompressedOops etc. checked below
		cds   bool
	}{
		{"default", nil, Layout{CompressedOops: true, CompressedClassPointers: true}, true},
		{"no-cds", []string{"-Xshare:off"}, Layout{CompressedOops: true, CompressedClassPointers: true}, false},
		{"no-coops", []string{"-Xshare:off", "-XX:-UseCompressedOops"}, Layout{CompressedClassPointers: true}, false},
		{"no-ccp", []string{"-Xshare:off", "-XX:-UseCompressedOops", "-XX:-UseCompressedClassPointers"}, Layout{}, false},
	}
	const n = 1000
	for _, j := range jdks(t) {
		for _, c := range configs {
			t.Run(j.name+"/"+c.name, func(t *testing.T) {
				p := startPopulation(t, j, n, c.flags...)
				before := time.Now().Truncate(time.Millisecond)
				hist, dumps := p.snapshot(t, t.TempDir())
				after := time.Now()
				want, err := parseClassHistogram(strings.NewReader(hist))
				if err != nil {
					t.Fatal(err)
				}
				if len(want) < 100 {
					t.Fatalf("jcmd histogram has only %d classes:\n%s", len(want), hist)
				}
				for _, dump := range dumps {
					t.Run(filepath.Base(dump), func(t *testing.T) {
						h, err := ReadFile(context.Background(), dump, Options{})
						if err != nil {
							t.Fatal(err)
						}
						if h.Truncated {
							t.Fatalf("got truncated at %d, want a complete dump", h.TruncatedAt)
						}
						if h.DumpTime.Before(before) || h.DumpTime.After(after) {
							t.Errorf("dump time %v, want between %v and %v (the jcmd calls)", h.DumpTime, before, after)
						}
						if h.Layout.CompressedOops != c.want.CompressedOops || h.Layout.CompressedClassPointers != c.want.CompressedClassPointers {
							t.Errorf("got layout %v, want %v (%s)", h.Layout, c.want, h.LayoutEvidence)
						}
						if h.GapCorrections != 0 {
							t.Errorf("got %d class sizes corrected from address gaps, want the layout replay exact (%s)", h.GapCorrections, h.LayoutEvidence)
						}
						compareHistograms(t, h, want, c.cds)
						checkPopulation(t, h, n)
					})
				}
			})
		}
	}
}

// compareHistograms requires every class to agree in instances and bytes.
// The one documented exception: with class data sharing the JVM's histogram
// also counts the archived mirrors of classes not loaded yet, which the
// heap dumper skips, so java.lang.Class may only be lower in the dump.
func compareHistograms(t *testing.T, h *Histogram, want map[string]ClassStat, cds bool) {
	t.Helper()
	got := map[string]ClassStat{}
	for _, c := range h.Classes {
		got[c.Class] = c
	}
	for _, c := range h.Fillers {
		if _, ok := want[c.Class]; !ok {
			t.Errorf("filler %s reported but not in the JVM histogram", c.Class)
		}
		delete(want, c.Class)
	}
	for name, w := range want {
		g := got[name]
		if cds && name == "java.lang.Class" {
			if g.Instances == 0 || g.Instances > w.Instances || g.Bytes > w.Bytes {
				t.Errorf("%s: got %d instances %d bytes, want at most %d/%d (CDS)", name, g.Instances, g.Bytes, w.Instances, w.Bytes)
			}
			continue
		}
		if g != w {
			t.Errorf("%s: got %d instances %d bytes, want %d instances %d bytes", name, g.Instances, g.Bytes, w.Instances, w.Bytes)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: got %d instances %d bytes, absent from the JVM histogram", name, g.Instances, g.Bytes)
		}
	}
}

// checkPopulation checks what Population.java built, independently of jcmd.
func checkPopulation(t *testing.T, h *Histogram, n int64) {
	t.Helper()
	got := map[string]int64{}
	for _, c := range h.Classes {
		got[c.Class] = c.Instances
	}
	for _, name := range []string{"Population$Point", "Population$Wide", "Population$Derived", "Population$Empty", "Population$Inner", "Population$Pair"} {
		if got[name] != n {
			t.Errorf("%s: got %d instances, want %d", name, got[name], n)
		}
	}
	var lambdas int64
	for name, c := range got {
		if strings.HasPrefix(name, "Population$$Lambda") && strings.Contains(name, "/0x") {
			lambdas += c
		}
	}
	if lambdas != n {
		t.Errorf("Population$$Lambda.../0x...: got %d instances, want %d", lambdas, n)
	}
	// 10 distinct "duplicate-k" values over n Strings, 7 "pk" values.
	if h.Strings.Duplicates < n-10 {
		t.Errorf("duplicate strings: got %d, want at least %d", h.Strings.Duplicates, n-10)
	}
	found := false
	for _, d := range h.Strings.Top {
		if strings.HasPrefix(d.Value, "duplicate-") && d.Count >= n/10 {
			found = true
		}
	}
	if !found {
		t.Errorf("top duplicate strings %+v lack a \"duplicate-k\" value with %d copies", h.Strings.Top, n/10)
	}
	if len(h.Largest) == 0 || h.Largest[0].Class != "[B" || h.Largest[0].Length != 4<<20 {
		t.Errorf("largest object: got %+v, want the 4 MiB byte[]", h.Largest[:min(1, len(h.Largest))])
	}
}

// TestFillersJDK25 checks the filler accounting on a JDK that writes G1
// filler objects: the JVM's histogram names filler arrays
// [Ljdk.internal.vm.FillerElement;, but the heap dumper writes them as plain
// int[] records, so they can only show up in [I — by exactly their amount.
func TestFillersJDK25(t *testing.T) {
	sparktest.Live(t)
	j25 := jdk{"temurin-25", sparktest.JDK(t, "25")}
	p := startProgram(t, j25, "Churn", nil, "-Xshare:off", "-XX:+UseG1GC", "-XX:+ExplicitGCInvokesConcurrent", "-Xmx512m")
	p.jcmd(t, "VM.version")
	// Churn's concurrent cycles leave fillers almost always; a heap that
	// has none is asked again, and five without any fail the test (it
	// would check nothing).
	var want map[string]ClassStat
	var filler ClassStat
	dump := filepath.Join(t.TempDir(), "churn.hprof")
	for attempt := 1; ; attempt++ {
		hist := p.jcmd(t, "GC.class_histogram", "-all")
		p.jcmd(t, "GC.heap_dump", "-all", dump)
		var err error
		want, err = parseClassHistogram(strings.NewReader(hist))
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		if filler, ok = want["[Ljdk.internal.vm.FillerElement;"]; ok {
			break
		}
		if attempt == 5 {
			t.Fatal("no filler arrays in five histograms of Churn on JDK 25: the test no longer reaches G1's fillers")
		}
		time.Sleep(time.Second)
	}
	h, err := ReadFile(context.Background(), dump, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := histMap(h)
	wantInts := want["[I"]
	if g := got["[I"]; g.Instances != wantInts.Instances+filler.Instances || g.Bytes != wantInts.Bytes+filler.Bytes {
		t.Errorf("[I: got %d/%d, want the JVM's %d/%d plus fillers %d/%d", g.Instances, g.Bytes,
			wantInts.Instances, wantInts.Bytes, filler.Instances, filler.Bytes)
	}
	delete(want, "[Ljdk.internal.vm.FillerElement;")
	delete(want, "[I")
	delete(got, "[I")
	// Without a full GC first, the heap still holds mirrors of unloaded
	// classes: the histogram counts them, the dumper writes mirrors of
	// loaded classes only.
	if g, w := got["java.lang.Class"], want["java.lang.Class"]; g.Instances == 0 || g.Instances > w.Instances || g.Bytes > w.Bytes {
		t.Errorf("java.lang.Class: got %+v, want at most %+v", g, w)
	}
	delete(want, "java.lang.Class")
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
}
