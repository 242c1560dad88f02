package hprof

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchDumpMB is the live heap the benchmark dump is made from; the dump
// comes out larger (about 740 MB) since HPROF identifiers are 8 bytes.
const benchDumpMB = 560

// benchDump returns a heap dump of at least 500 MB made once by a real JVM
// and cached under os.TempDir(), keyed by the generator's version.
func benchDump(b *testing.B) string {
	b.Helper()
	jcmd, err := exec.LookPath("jcmd")
	if err != nil {
		b.Skip("skipping: missing program jcmd")
	}
	src, err := os.ReadFile("testdata/BigHeap.java")
	if err != nil {
		b.Fatal(err)
	}
	key := fmt.Sprintf("sparkdx-hprof-bench-v1-%d-%x", benchDumpMB, len(src))
	path := filepath.Join(os.TempDir(), key+".hprof")
	if fi, err := os.Stat(path); err == nil && fi.Size() >= 500<<20 {
		return path
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
	tmp := path + ".tmp"
	_ = os.Remove(tmp)
	if out, err := exec.Command(filepath.Join(home, "bin", "jcmd"), pid, "GC.heap_dump", tmp).CombinedOutput(); err != nil {
		b.Fatalf("jcmd GC.heap_dump: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

func BenchmarkReadFile(b *testing.B) {
	path := benchDump(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(context.Background(), path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
