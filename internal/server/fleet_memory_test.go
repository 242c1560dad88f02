package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// BenchmarkTailFleetBig tails many copies of the whole big real log (26k
// events, 13k tasks: every line but the application's end, so each stays
// running), each under its own app id and growing in 10 steps, written
// zstd-compressed as Spark writes it (a frame per step; 1.6 MB a copy
// instead of 40). It reports the ingest rate and the memory each running
// application costs: rss-MB/app is (peak RSS - RSS before the logs) ÷
// apps, heap-MB/app the live heap after ingest ÷ apps. The 1,000-app case
// needs about 2 GB of disk and some minutes.
func BenchmarkTailFleetBig(b *testing.B) {
	lines := bigLines(b, 1<<30, false)
	for _, apps := range []int{100, 1000} {
		b.Run("apps="+strconv.Itoa(apps), func(b *testing.B) { benchTailFleetBig(b, lines, apps) })
	}
}

// bigSteps cuts lines into steps of zstd frames, a frame per run of lines
// that do or do not name the big log's app id; a step is written to app
// j as its shared frames and its own copy of the others (own(j)).
type bigStep []bigFrame

type bigFrame struct {
	shared []byte   // the frame, when no line names the app id
	own    [][]byte // per app, when one does
}

func bigSteps(b *testing.B, lines [][]byte, steps int, ids []string) []bigStep {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
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
				out[s] = append(out[s], bigFrame{shared: enc.EncodeAll(run, nil)})
			} else {
				f := bigFrame{own: make([][]byte, len(ids))}
				for k, id := range ids {
					f.own[k] = enc.EncodeAll(bytes.ReplaceAll(run, bigID, []byte(id)), nil)
				}
				out[s] = append(out[s], f)
			}
			i = j
		}
	}
	return out
}

func benchTailFleetBig(b *testing.B, lines [][]byte, apps int) {
	const steps = 10
	events := 0
	for _, ln := range lines {
		if len(bytes.TrimSpace(ln)) > 0 {
			events++
		}
	}
	ids := make([]string, apps)
	for j := range ids {
		ids[j] = fmt.Sprintf("application_1701368813061_%05d", 10000+j)
	}
	data := bigSteps(b, lines, steps, ids)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		ts := startServer(b, b.TempDir(), "", dir)
		ts.waitIdle(b)
		runtime.GC()
		var ms0 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		resetPeakRSS(b)
		base := rssMB("VmRSS:")
		b.StartTimer()
		start := time.Now()
		before := ts.in.Status().Events
		for s := range data {
			for j, id := range ids {
				f, err := os.OpenFile(filepath.Join(dir, id+".zstd.inprogress"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					b.Fatal(err)
				}
				for _, fr := range data[s] {
					w := fr.shared
					if w == nil {
						w = fr.own[j]
					}
					if _, err := f.Write(w); err != nil {
						b.Fatal(err)
					}
				}
				f.Close()
			}
		}
		want := before + int64(events*apps)
		for ts.in.Status().Events < want {
			if time.Since(start) > 30*time.Minute {
				b.Fatalf("ingested %d of %d events in 30 min", ts.in.Status().Events-before, events*apps)
			}
			time.Sleep(20 * time.Millisecond)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		if st := ts.in.Status(); st.Running != apps || st.Errors != 0 || st.BadLines != 0 {
			b.Fatalf("status %+v: want %d running apps, no errors", st, apps)
		}
		peak := rssMB("VmHWM:")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(events*apps)/elapsed.Seconds(), "events/s")
		b.ReportMetric(peak, "peak-rss-MB")
		b.ReportMetric((peak-base)/float64(apps), "rss-MB/app")
		b.ReportMetric(float64(ms.HeapInuse-ms0.HeapInuse)/(1<<20)/float64(apps), "heap-MB/app")
		ts.stop()
		ts.stop = nil
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
