package agent

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/jvm/hsperf"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// parseJstat reads jstat's two-line output (header, values) into column →
// value; columns jstat prints as "-" are left out.
func parseJstat(t *testing.T, out string) map[string]float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		t.Fatalf("jstat output has %d lines, want 2:\n%s", len(lines), out)
	}
	head, vals := strings.Fields(lines[0]), strings.Fields(lines[len(lines)-1])
	if len(head) != len(vals) {
		t.Fatalf("jstat: %d columns, %d values:\n%s", len(head), len(vals), out)
	}
	m := map[string]float64{}
	for i, h := range head {
		if vals[i] == "-" {
			continue
		}
		v, err := strconv.ParseFloat(vals[i], 64)
		if err != nil {
			t.Fatalf("jstat column %s: %v", h, err)
		}
		if _, dup := m[h]; !dup { // -class repeats "Bytes"; keep the first
			m[h] = v
		}
	}
	return m
}

// jstatColumns computes jstat -gc and -class columns from what the agent
// reports, in jstat's units (KB, seconds, counts).
func jstatColumns(j *JVM) map[string]float64 {
	m := map[string]float64{}
	kb := func(b uint64) float64 { return float64(b) / 1024 }
	for _, p := range j.Memory {
		var c, u string
		switch p.Name {
		case "s0":
			c, u = "S0C", "S0U"
		case "s1":
			c, u = "S1C", "S1U"
		case "eden", "young": // ZGC's young generation has one space
			c, u = "EC", "EU"
		case "old", "heap": // Shenandoah has one generation, "Heap"
			c, u = "OC", "OU"
		case "metaspace":
			c, u = "MC", "MU"
		case "compressed_class_space":
			c, u = "CCSC", "CCSU"
		default:
			continue
		}
		m[c], m[u] = kb(p.CommittedBytes), kb(p.UsedBytes)
	}
	cols := map[string][2]string{"young": {"YGC", "YGCT"}, "full": {"FGC", "FGCT"}, "concurrent": {"CGC", "CGCT"}}
	for _, g := range j.GC {
		c := cols[g.Kind]
		m[c[0]] += float64(g.Collections)
		m[c[1]] += g.Seconds
	}
	m["Loaded"] = float64(j.ClassesLoaded)
	m["Unloaded"] = float64(j.ClassesUnloaded)
	return m
}

// tolerance is how far a jstat column may be from the agent's value: jstat
// rounds KB and seconds to three or one decimals.
func tolerance(col string) float64 {
	if strings.HasSuffix(col, "T") {
		return 0.0015
	}
	return 0.1
}

// checkJstat checks every column jstat printed against the agent's values
// before and after jstat ran: the jstat value must lie between them, give
// or take jstat's rounding.
func checkJstat(t *testing.T, before, after *JVM, jstat map[string]float64) {
	t.Helper()
	b, a := jstatColumns(before), jstatColumns(after)
	for col, got := range jstat {
		if col == "GCT" || col == "Bytes" || col == "Time" {
			continue // derived or not reported by the agent
		}
		lo, okLo := b[col]
		hi, okHi := a[col]
		if !okLo || !okHi {
			if got != 0 {
				t.Errorf("jstat %s = %v, agent has no such value", col, got)
			}
			continue
		}
		lo, hi = math.Min(lo, hi), math.Max(lo, hi)
		if tol := tolerance(col); got < lo-tol || got > hi+tol {
			t.Errorf("jstat %s = %v, agent says %v..%v", col, got, lo, hi)
		}
	}
}

// TestJVMAgainstRecordedJstat checks the agent's JVM view of the hsperfdata
// captures in internal/jvm/hsperf/testdata against jstat's output recorded
// at the same moment.
func TestJVMAgainstRecordedJstat(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "jvm", "hsperf", "testdata", "*.hsperf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hsperf captures: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".hsperf")
		t.Run(name, func(t *testing.T) {
			snap, err := hsperf.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			hj := snap.JVM()
			j := fromHsperf(f, &hj)
			for _, kind := range []string{"gc", "class"} {
				out, err := os.ReadFile(strings.TrimSuffix(f, ".hsperf") + ".jstat-" + kind)
				if err != nil {
					t.Fatal(err)
				}
				checkJstat(t, j, j, parseJstat(t, string(out)))
			}
		})
	}
}

// jvmSample samples until pid has a JVM section.
func jvmSample(t *testing.T, a *Agent, pid int) *JVM {
	t.Helper()
	return waitFor(t, a, pid, "hsperfdata", func(p Process) bool { return p.JVM != nil }).JVM
}

func runJstat(t *testing.T, jstat, option string, pid int) map[string]float64 {
	t.Helper()
	out, err := exec.Command(jstat, option, strconv.Itoa(pid)).CombinedOutput()
	if err != nil {
		t.Fatalf("jstat %s %d: %v\n%s", option, pid, err, out)
	}
	return parseJstat(t, string(out))
}

// TestRealJVMAgainstJstat runs a Spark-named executor under each collector,
// makes it collect, and checks the agent against jstat -gc and -class on
// the same JVM.
func TestRealJVMAgainstJstat(t *testing.T) {
	jstat := sparktest.Program(t, "jstat")
	for _, gc := range []string{"Serial", "Parallel", "G1", "Z"} {
		t.Run(gc, func(t *testing.T) {
			p := startJVM(t, nil, []string{"-Xmx128m", "-XX:+Use" + gc + "GC"}, executorClass, executorArgs("app-jstat", "1")...)
			p.do(t, "fill 0.3")
			p.do(t, "classes 50")
			p.do(t, "gc")
			a := realAgent(t, Config{})
			for _, option := range []string{"-gc", "-class"} {
				before := jvmSample(t, a, p.PID)
				got := runJstat(t, jstat, option, p.PID)
				after := jvmSample(t, a, p.PID)
				checkJstat(t, before, after, got)
			}
			j := jvmSample(t, a, p.PID)
			var collections uint64
			for _, g := range j.GC {
				collections += g.Collections
			}
			if collections == 0 || j.HeapMaxBytes < 100<<20 || j.HeapUsedBytes == 0 || j.ThreadsLive == 0 || j.ClassesLoaded < 50 {
				t.Errorf("got collections %d, heap max %d used %d, threads %d, classes %d; want all > 0, heap max ≈ 128 MiB, classes >= 50",
					collections, j.HeapMaxBytes, j.HeapUsedBytes, j.ThreadsLive, j.ClassesLoaded)
			}
			if start := time.UnixMilli(j.StartTime); time.Since(start) > 2*time.Minute {
				t.Errorf("got JVM start %v, want within the test", start)
			}
		})
	}
}

func TestRealClassLoadingRises(t *testing.T) {
	p := startJVM(t, nil, []string{"-Xmx64m", "-Dsdx.classloop=true"}, executorClass, executorArgs("app-classes", "2")...)
	a := realAgent(t, Config{})
	var last uint64
	for i := 0; i < 4; i++ {
		j := jvmSample(t, a, p.PID)
		if i > 0 && j.ClassesLoaded <= last {
			t.Errorf("sample %d: got %d classes loaded, want more than %d", i, j.ClassesLoaded, last)
		}
		last = j.ClassesLoaded
		time.Sleep(300 * time.Millisecond)
	}
}

func TestRealPerfDataDisabled(t *testing.T) {
	p := startJVM(t, nil, []string{"-Xmx64m", "-XX:-UsePerfData"}, executorClass, executorArgs("app-noperf", "5")...)
	a := realAgent(t, Config{})
	s, err := a.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, ok := byPID(s)[p.PID]
	if !ok {
		t.Fatalf("pid %d not found", p.PID)
	}
	if got.JVM != nil || !strings.Contains(got.JVMUnavailable, "-XX:-UsePerfData") {
		t.Errorf("got jvm %v, unavailable %q; want no JVM section and a reason naming -XX:-UsePerfData", got.JVM, got.JVMUnavailable)
	}
	if got.RSSBytes == 0 || got.Threads == 0 || got.AppID != "app-noperf" {
		t.Errorf("got rss %d threads %d app %q, want /proc data and app-noperf", got.RSSBytes, got.Threads, got.AppID)
	}
}

// TestRealJITState: a real JVM started with -XX:ReservedCodeCacheSize
// reports its reserve and the code its JIT compiled, in the snapshot and
// in /metrics under its labels.
func TestRealJITState(t *testing.T) {
	p := startJVM(t, nil, []string{"-Xmx64m", "-XX:ReservedCodeCacheSize=48m", "-Dsdx.classloop=true"}, executorClass,
		executorArgs("app-jit", "4")...)
	a := realAgent(t, Config{})
	j := jvmSample(t, a, p.PID)
	if j.CodeCacheReservedBytes != 48<<20 || j.JITCodeBytes == 0 || j.JITCompilations == 0 {
		t.Errorf("got reserved %d, code bytes %d, compilations %d; want 48 MiB and some compiled code",
			j.CodeCacheReservedBytes, j.JITCodeBytes, j.JITCompilations)
	}
	m := series(t, a)
	labels := fmt.Sprintf(`{app_id="app-jit",executor_id="4",host=%q,pid="%d",role="executor"}`, a.cfg.Host, p.PID)
	if v := m["jvm_code_cache_reserved_bytes"+labels]; v != 48<<20 {
		t.Errorf("/metrics jvm_code_cache_reserved_bytes%s: got %v, want %d", labels, v, 48<<20)
	}
	if v := m["jvm_jit_compiled_code_bytes_total"+labels]; v <= 0 {
		t.Errorf("/metrics jvm_jit_compiled_code_bytes_total%s: got %v, want > 0", labels, v)
	}
}
