package hprof

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestHelperReadDump is not a test: BenchmarkHeapSideBySide runs the test
// binary with SPARKDX_HPROF_HELPER=mode:path to read one dump in a process
// of its own, so that its peak RSS is the reader's alone.
func TestHelperReadDump(t *testing.T) {
	spec := os.Getenv("SPARKDX_HPROF_HELPER")
	if spec == "" {
		t.Skip("helper process for BenchmarkHeapSideBySide")
	}
	mode, path := spec[:1], spec[2:]
	var err error
	if mode == "h" {
		_, err = ReadFile(context.Background(), path, Options{})
	} else {
		_, _, err = ReadFileRetained(context.Background(), path, RetainedOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// measured runs cmd and returns its wall time and peak RSS.
func measured(b *testing.B, cmd *exec.Cmd) (time.Duration, int64) {
	b.Helper()
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Since(start), ru.Maxrss * 1024
}

// BenchmarkHeapSideBySide reads the benchmark dump (see benchDump) in
// separate processes: sparkdx's histogram, sparkdx's dominator tree
// (ReadFileRetained) and hprof-slurp (crates.io; `cargo install
// hprof-slurp --version 0.6.0`, skipped when absent), reporting each one's
// seconds and peak RSS in MB. MB/s are dump bytes of the dominator run.
func BenchmarkHeapSideBySide(b *testing.B) {
	path := benchDump(b, false)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	slurp, slurpErr := exec.LookPath("hprof-slurp")
	b.SetBytes(fi.Size())
	helper := func(mode string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperReadDump$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SPARKDX_HPROF_HELPER="+mode+":"+path)
		return cmd
	}
	var hist, ret, sl time.Duration
	var histRSS, retRSS, slRSS int64
	for b.Loop() {
		d, rss := measured(b, helper("h"))
		hist, histRSS = hist+d, max(histRSS, rss)
		d, rss = measured(b, helper("r"))
		ret, retRSS = ret+d, max(retRSS, rss)
		if slurpErr == nil {
			d, rss = measured(b, exec.Command(slurp, "--inputFile", path))
			sl, slRSS = sl+d, max(slRSS, rss)
		}
	}
	n := float64(b.N)
	b.ReportMetric(hist.Seconds()/n, "histogram-s")
	b.ReportMetric(float64(histRSS)/1e6, "histogram-RSS-MB")
	b.ReportMetric(ret.Seconds()/n, "retained-s")
	b.ReportMetric(float64(retRSS)/1e6, "retained-RSS-MB")
	b.ReportMetric(100*float64(retRSS)/float64(fi.Size()), "retained-RSS-%dump")
	if slurpErr == nil {
		b.ReportMetric(sl.Seconds()/n, "hprof-slurp-s")
		b.ReportMetric(float64(slRSS)/1e6, "hprof-slurp-RSS-MB")
	} else {
		b.Logf("hprof-slurp not installed: %v", fmt.Sprint(slurpErr))
	}
}
