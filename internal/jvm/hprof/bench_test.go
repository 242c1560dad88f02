package hprof

import (
	"bufio"
	"context"
	"fmt"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchDumpMB is the live heap the benchmark dump is made from; the dump
// comes out larger (about 740 MB) since HPROF identifiers are 8 bytes.
const benchDumpMB = 560

// smallDumpObjects is the object count of the second benchmark dump, the
// issue's shape: about 20 M objects of about 100 dump bytes each (2 GB).
const smallDumpObjects = 20_000_000

// heapMaker is a test program that fills a heap and prints "ready PID",
// and what it is asked for.
type heapMaker struct {
	source string // under testdata/
	class  string
	arg    int64
	key    string // cache file name prefix, with a version
	min    int64  // smallest acceptable dump
	gz     bool   // also dump with -gz=1
}

// benchDump returns a heap dump of at least 500 MB made once by a real JVM
// and cached under os.TempDir(), keyed by the generator's version; with gz,
// the same heap dumped with -gz=1.
func benchDump(b *testing.B, gz bool) string {
	return makeDump(b, heapMaker{source: "BigHeap.java", class: "BigHeap", arg: benchDumpMB,
		key: fmt.Sprintf("sparkdx-hprof-bench-v1-%d", benchDumpMB), min: 500 << 20, gz: true}, gz)
}

// smallDump returns a dump of about 20 M small objects (about 2 GB), made
// once and cached like benchDump's.
func smallDump(b *testing.B) string {
	return makeDump(b, heapMaker{source: "SmallHeap.java", class: "SmallHeap", arg: smallDumpObjects,
		key: fmt.Sprintf("sparkdx-hprof-bench-small-v1-%d", smallDumpObjects), min: 1500 << 20}, false)
}

func makeDump(b *testing.B, m heapMaker, gz bool) string {
	b.Helper()
	jcmd := sparktest.Program(b, "jcmd")
	src, err := os.ReadFile(filepath.Join("testdata", m.source))
	if err != nil {
		b.Fatal(err)
	}
	key := fmt.Sprintf("%s-%x", m.key, len(src))
	path := filepath.Join(os.TempDir(), key+".hprof")
	gzPath := path + ".gz"
	want := path
	if gz {
		want = gzPath
	}
	_, errPlain := os.Stat(path)
	_, errGz := os.Stat(gzPath)
	if errPlain == nil && (errGz == nil || !m.gz) {
		return want
	}
	home := filepath.Dir(filepath.Dir(jcmd))
	if real, err := filepath.EvalSymlinks(jcmd); err == nil {
		home = filepath.Dir(filepath.Dir(real))
	}
	classes := b.TempDir()
	abs, _ := filepath.Abs(filepath.Join("testdata", m.source))
	if out, err := exec.Command(filepath.Join(home, "bin", "javac"), "-d", classes, abs).CombinedOutput(); err != nil {
		b.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command(filepath.Join(home, "bin", "java"), "-Xmx3g", "-cp", classes, m.class, fmt.Sprint(m.arg))
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	pid := ""
	deadline := time.Now().Add(5 * time.Minute)
	for pid == "" && time.Now().Before(deadline) && sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "ready" {
			pid = f[1]
		}
	}
	if pid == "" {
		b.Fatalf("%s never became ready", m.class)
	}
	dumps := []struct {
		path string
		args []string
	}{{path, nil}}
	if m.gz {
		dumps = append(dumps, struct {
			path string
			args []string
		}{gzPath, []string{"-gz=1"}})
	}
	for _, d := range dumps {
		tmp := d.path + ".tmp"
		_ = os.Remove(tmp)
		args := append(append([]string{pid, "GC.heap_dump"}, d.args...), tmp)
		if out, err := exec.Command(filepath.Join(home, "bin", "jcmd"), args...).CombinedOutput(); err != nil {
			b.Fatalf("jcmd GC.heap_dump: %v\n%s", err, out)
		}
		if err := os.Rename(tmp, d.path); err != nil {
			b.Fatal(err)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() < m.min {
		b.Fatalf("benchmark dump %s: %v, want at least %d MB", path, err, m.min>>20)
	}
	return want
}

// BenchmarkReadFile reads the plain dump (from page cache after the first
// iteration); MB/s are dump bytes.
func BenchmarkReadFile(b *testing.B) {
	benchRead(b, benchDump(b, false))
}

// BenchmarkReadFileGzip reads the same heap dumped with -gz=1; MB/s are
// uncompressed dump bytes, comparable with BenchmarkReadFile.
func BenchmarkReadFileGzip(b *testing.B) {
	benchRead(b, benchDump(b, true))
}

func benchRead(b *testing.B, path string) {
	h, err := ReadFile(context.Background(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(h.BytesRead)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(context.Background(), path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFileRetained computes the dominator tree of the benchmark
// dump; MB/s are dump bytes, peak-RSS-MB is the process's high-water mark
// (run it alone: -run '^$' -bench 'ReadFileRetained$').
func BenchmarkReadFileRetained(b *testing.B) {
	benchRetained(b, benchDump(b, false))
}

// BenchmarkReadFileRetainedSmall is BenchmarkReadFileRetained on the
// issue's shape: about 20 M objects of about 100 bytes (a 2 GB dump).
func BenchmarkReadFileRetainedSmall(b *testing.B) {
	benchRetained(b, smallDump(b))
}

func benchRetained(b *testing.B, path string) {
	// The peak is the first analysis's, as the CLI runs it in a fresh
	// process (Linux: clear_refs 5 resets the high-water mark); the timed
	// runs reuse its heap, whose memory Go zeroes (so touches) on reuse:
	// rerun-peak-RSS-MB.
	reset := func() bool { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil }
	hwm := func(ok bool) float64 {
		var ru syscall.Rusage
		if kb := statusKB("VmHWM:"); ok && kb > 0 {
			return float64(kb) * 1024
		}
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0
		}
		return float64(ru.Maxrss) * 1024
	}
	debug.FreeOSMemory()
	ok := reset()
	h, r, err := ReadFileRetained(context.Background(), path, RetainedOptions{phase: phaseLogger(b)})
	if err != nil {
		b.Fatal(err)
	}
	rss := hwm(ok)
	b.SetBytes(h.BytesRead)
	b.ReportAllocs()
	ok = reset()
	for b.Loop() {
		if _, _, err := ReadFileRetained(context.Background(), path, RetainedOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(rss/(1<<20), "peak-RSS-MB")
	b.ReportMetric(100*rss/float64(h.BytesRead), "RSS-%-of-dump")
	b.ReportMetric(rss/float64(r.Objects), "RSS-B/object")
	b.ReportMetric(hwm(ok)/(1<<20), "rerun-peak-RSS-MB")
	b.ReportMetric(float64(r.Objects), "objects")
	b.ReportMetric(float64(r.References), "references")
}

// phaseLogger logs, as each phase of an analysis ends, its time, the Go
// heap in use and the process's resident and peak resident memory.
func phaseLogger(b *testing.B) func(string) {
	last := time.Now()
	return func(name string) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.Logf("%-18s %6.2f s  heap in use %5d MB  RSS %5d MB  peak %5d MB", name, time.Since(last).Seconds(),
			ms.HeapInuse>>20, statusKB("VmRSS:")>>10, statusKB("VmHWM:")>>10)
		last = time.Now()
	}
}

// statusKB is a kB figure of /proc/self/status (0: none).
func statusKB(key string) int64 {
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}
