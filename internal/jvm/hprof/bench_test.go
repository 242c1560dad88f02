package hprof

import (
	"bufio"
	"context"
	"fmt"
	"github.com/sparkdx/sparkdx/internal/sparktest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchDumpMB is the live heap the benchmark dump is made from; the dump
// comes out larger (about 740 MB) since HPROF identifiers are 8 bytes.
const benchDumpMB = 560

// benchDump returns a heap dump of at least 500 MB made once by a real JVM
// and cached under os.TempDir(), keyed by the generator's version; with gz,
// the same heap dumped with -gz=1.
func benchDump(b *testing.B, gz bool) string {
	b.Helper()
	jcmd := sparktest.Program(b, "jcmd")
	src, err := os.ReadFile("testdata/BigHeap.java")
	if err != nil {
		b.Fatal(err)
	}
	key := fmt.Sprintf("sparkdx-hprof-bench-v1-%d-%x", benchDumpMB, len(src))
	path := filepath.Join(os.TempDir(), key+".hprof")
	gzPath := path + ".gz"
	want := path
	if gz {
		want = gzPath
	}
	_, errPlain := os.Stat(path)
	_, errGz := os.Stat(gzPath)
	if errPlain == nil && errGz == nil {
		return want
	}
	home := filepath.Dir(filepath.Dir(jcmd))
	if real, err := filepath.EvalSymlinks(jcmd); err == nil {
		home = filepath.Dir(filepath.Dir(real))
	}
	classes := b.TempDir()
	abs, _ := filepath.Abs("testdata/BigHeap.java")
	if out, err := exec.Command(filepath.Join(home, "bin", "javac"), "-d", classes, abs).CombinedOutput(); err != nil {
		b.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command(filepath.Join(home, "bin", "java"), "-Xmx3g", "-cp", classes, "BigHeap", fmt.Sprint(benchDumpMB))
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
		b.Fatal("BigHeap never became ready")
	}
	for _, d := range []struct {
		path string
		args []string
	}{{path, nil}, {gzPath, []string{"-gz=1"}}} {
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
	if fi, err := os.Stat(path); err != nil || fi.Size() < 500<<20 {
		b.Fatalf("benchmark dump %s: %v, want at least 500 MB", path, err)
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
// dump (three passes); MB/s are dump bytes, peak-RSS-MB is the process's
// high-water mark (run it alone: -run '^$' -bench Retained).
func BenchmarkReadFileRetained(b *testing.B) {
	path := benchDump(b, false)
	h, r, err := ReadFileRetained(context.Background(), path, RetainedOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(h.BytesRead)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ReadFileRetained(context.Background(), path, RetainedOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
	}
	b.ReportMetric(float64(r.Objects), "objects")
	b.ReportMetric(float64(r.References), "references")
}
