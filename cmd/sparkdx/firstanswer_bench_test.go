package main

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// BenchmarkServeFirstAnswer compares, on one finished log, `sparkdx serve`
// started afresh until its first full answer (the application listed, its
// jobs and stages answered) with `sparkdx analyze` of the same log, whole
// processes in turn, and reports both and their ratio (the goal: serve ≤
// 1.2× analyze). Sets: the 40 MB shared big log, and the same grown 4
// times (sparktest.GrownLog, 158 MB decoded). Run
//
//	go test ./cmd/sparkdx -run '^$' -bench ServeFirstAnswer -benchtime 5x
func BenchmarkServeFirstAnswer(b *testing.B) {
	bin := buildSparkdx(b)
	for _, set := range []struct {
		name   string
		copies int
	}{{"big-40MB", 1}, {"grown-x4-158MB", 4}} {
		b.Run(set.name, func(b *testing.B) {
			dir := b.TempDir()
			log := sparktest.GrownLog(b, dir, set.copies)
			var serveTime, analyzeTime time.Duration
			for b.Loop() {
				start := time.Now()
				if out, err := exec.Command(bin, "analyze", "--format", "json", "-o", filepath.Join(b.TempDir(), "r.json"), log).CombinedOutput(); err != nil {
					b.Fatalf("analyze: %v\n%s", err, out)
				}
				analyzeTime += time.Since(start)

				start = time.Now()
				dx := startServe(b, bin, dir, b.TempDir())
				fullAnswer(b, dx.url, 1)
				serveTime += time.Since(start)
				dx.cmd.Process.Kill()
				dx.cmd.Wait()
			}
			n := float64(b.N)
			b.ReportMetric(float64(analyzeTime.Milliseconds())/n, "analyze-ms")
			b.ReportMetric(float64(serveTime.Milliseconds())/n, "serve-ms")
			b.ReportMetric(serveTime.Seconds()/analyzeTime.Seconds(), "serve/analyze")
		})
	}
}
