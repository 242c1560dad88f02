package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkTailFleetBig tails 100 and 1,000 growing copies of the first
// 5,000 lines of the big real log (2,400 tasks; 7.6 MB a copy), each
// under its own app id, written in 20 steps. Copies of the whole log
// (40 MB, 13k tasks) would need 40 GB of disk for 1,000: the issue's
// shape is measured with 100 of them. It reports the ingest rate and the memory each running
// application costs: rss-MB/app is (peak RSS - RSS before the logs) ÷
// apps, end-rss-MB/app the same with the RSS once every event is applied,
// heap-MB/app the live heap after ingest ÷ apps (scraped-heap-MB/app
// and scraped-rss-MB/app, the peak, after a /metrics scrape), B/event and
// allocs/event what ingest allocated per event, and reads/event how often
// the ingester read each event (above 1 when a log was read again from
// its start).
//
// The copies' bytes live outside the Go heap (offHeap): they stand for
// what Spark writes from another process, and on the heap their 110 MB
// raised the GC's goal (twice the live heap) and so the peak RSS the
// benchmark charges to the running applications.
func BenchmarkTailFleetBig(b *testing.B) {
	all := offHeap(b, bigLines(b, 1<<30, false))
	for _, c := range []struct{ apps, lines int }{{100, 5000}, {1000, 5000}, {100, len(all)}} {
		b.Run(fmt.Sprintf("apps=%d/lines=%d", c.apps, c.lines), func(b *testing.B) { benchTailFleetBig(b, all[:c.lines], c.apps) })
	}
}

// bigStep is a step's lines as runs that do or do not name the big log's
// app id: a shared run is written to every copy, an own one per copy.
type bigStep []bigRun

type bigRun struct {
	shared []byte   // when no line names the app id
	own    [][]byte // per app, when one does
}

func bigSteps(lines [][]byte, steps int, ids []string) []bigStep {
	bigID := []byte("application_1701368813061_0008")
	out := make([]bigStep, steps)
	for s := range steps {
		lo, hi := s*len(lines)/steps, (s+1)*len(lines)/steps
		for i := lo; i < hi; {
			own := bytes.Contains(lines[i], bigID)
			j := i + 1
			for j < hi && bytes.Contains(lines[j], bigID) == own {
				j++
			}
			run := bytes.Join(lines[i:j], nil)
			if !own {
				out[s] = append(out[s], bigRun{shared: run})
			} else {
				r := bigRun{own: make([][]byte, len(ids))}
				for k, id := range ids {
					r.own[k] = bytes.ReplaceAll(run, bigID, []byte(id))
				}
				out[s] = append(out[s], r)
			}
			i = j
		}
	}
	return out
}

func benchTailFleetBig(b *testing.B, lines [][]byte, apps int) {
	const steps = 20
	events := 0
	for _, ln := range lines {
		// A last line without its newline is not a whole event yet: a
		// tailer waits for the rest of it (the whole big log ends so).
		if len(bytes.TrimSpace(ln)) > 0 && bytes.HasSuffix(ln, []byte("\n")) {
			events++
		}
	}
	ids := make([]string, apps)
	for j := range ids {
		ids[j] = fmt.Sprintf("application_1701368813061_%05d", 10000+j)
	}
	data := bigSteps(lines, steps, ids)
	var bufs [][]byte
	for _, st := range data {
		for _, r := range st {
			bufs = append(bufs, r.shared)
			bufs = append(bufs, r.own...)
		}
	}
	bufs = offHeap(b, bufs)
	for _, st := range data {
		for k := range st {
			r := &st[k]
			r.shared, bufs = bufs[0], bufs[1:]
			n := copy(r.own, bufs)
			bufs = bufs[n:]
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		ts := startServer(b, b.TempDir(), "", dir)
		ts.waitIdle(b)
		// Return the heap the setup freed (the log read, the copies
		// made) to the OS: pages kept would be reused by the server
		// without showing in its RSS.
		debug.FreeOSMemory()
		var ms0 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		resetPeakRSS(b)
		base := rssMB("VmRSS:")
		b.StartTimer()
		start := time.Now()
		before := ts.in.Status().Events
		for s := range data {
			for j, id := range ids {
				f, err := os.OpenFile(filepath.Join(dir, id+".inprogress"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					b.Fatal(err)
				}
				for _, run := range data[s] {
					w := run.shared
					if w == nil {
						w = run.own[j]
					}
					if _, err := f.Write(w); err != nil {
						b.Fatal(err)
					}
				}
				f.Close()
			}
		}
		waitApps(b, ts, apps, int64(events), start)
		elapsed := time.Since(start)
		b.StopTimer()
		end := rssMB("VmRSS:")
		st := ts.in.Status()
		if st.Running != apps || st.Errors != 0 || st.BadLines != 0 {
			b.Fatalf("status %+v: want %d running apps, no errors", st, apps)
		}
		b.ReportMetric(float64(st.Events-before)/float64(events*apps), "reads/event")
		peak := rssMB("VmHWM:")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(events*apps)/elapsed.Seconds(), "events/s")
		b.ReportMetric(peak, "peak-rss-MB")
		b.ReportMetric((peak-base)/float64(apps), "rss-MB/app")
		b.ReportMetric((end-base)/float64(apps), "end-rss-MB/app")
		b.ReportMetric(float64(ms.TotalAlloc-ms0.TotalAlloc)/float64(events*apps), "B/event")
		b.ReportMetric(float64(ms.Mallocs-ms0.Mallocs)/float64(events*apps), "allocs/event")
		b.ReportMetric(float64(ms.HeapInuse-ms0.HeapInuse)/(1<<20)/float64(apps), "heap-MB/app")
		// A Prometheus scrape analyses every running application: what
		// it leaves on the heap is per running application too.
		if code, body := ts.get(b, "/metrics"); code != 200 {
			b.Fatalf("/metrics: %d %.200s", code, body)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse-ms0.HeapInuse)/(1<<20)/float64(apps), "scraped-heap-MB/app")
		b.ReportMetric((rssMB("VmHWM:")-base)/float64(apps), "scraped-rss-MB/app")
		ts.stop()
		ts.stop = nil
	}
}

// waitApps waits until each of the apps has applied n events. The
// ingester's own event count cannot tell: a worker reads a growing log in
// turns of at most MaxBatch, and a log queued again after a full turn is
// checked against the size the scan saw before the turn read past it, so
// it is taken for a replaced log and read again from its start (reads/event
// above 1; seen with whole copies of the big log).
func waitApps(b *testing.B, ts *testServer, apps int, n int64, start time.Time) {
	idle := time.Time{}
	for {
		done, least := 0, int64(-1)
		for _, r := range ts.in.Records() {
			if r.Events >= n {
				done++
			} else if least < 0 || r.Events < least {
				least = r.Events
			}
		}
		if done == apps {
			return
		}
		// Ingest idle for a minute with apps short of n will not get there.
		st := ts.in.Status()
		if st.QueueDepth > 0 || st.InFlight > 0 {
			idle = time.Time{}
		} else if idle.IsZero() {
			idle = time.Now()
		}
		if time.Since(start) > 30*time.Minute || (!idle.IsZero() && time.Since(idle) > time.Minute) {
			b.Fatalf("%d of %d apps have %d events (the least has %d) after %v: %+v", done, apps, n, least, time.Since(start).Round(time.Second), st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux 4.0+).
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("peak RSS not reset (%v): rss-MB/app counts what came before", err)
	}
}

// rssMB reads one of /proc/self/status's memory lines (VmRSS:, VmHWM:) in MB.
func rssMB(key string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, ln := range strings.Split(string(data), "\n") {
		if f := strings.Fields(ln); len(f) >= 2 && f[0] == key {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
