package hsperf

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"jdk17-g1", "jdk25-z"} {
		b.Run(name, func(b *testing.B) {
			buf := readFixture(b, name)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJVM(b *testing.B) {
	buf := readFixture(b, "jdk17-g1")
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(buf)
		if err != nil {
			b.Fatal(err)
		}
		_ = s.JVM()
	}
}

// BenchmarkSample compares one sample of a live JVM as the agent takes it
// (read the file, build the typed view) with one `jstat -gc PID`.
func BenchmarkSample(b *testing.B) {
	home := sparktest.JDK(b, "17")
	classes := compile(b, home)
	w := startWorkload(b, []string{filepath.Join(home, "bin", "java"), "-XX:+UseG1GC", "-Xmx256m", "-cp", classes, "Workload"})
	w.do(b, "alloc 32", "classes 100")
	path, err := FindFile("/proc", w.pid)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("hsperf", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			_ = s.JVM()
		}
	})
	b.Run("jstat", func(b *testing.B) {
		jstat := filepath.Join(home, "bin", "jstat")
		for b.Loop() {
			if out, err := exec.Command(jstat, "-gc", strconv.Itoa(w.pid)).CombinedOutput(); err != nil {
				b.Fatalf("jstat: %v\n%s", err, out)
			}
		}
	})
}
