package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// BenchmarkHistoryServerSideBySide replays the same event logs in Spark's
// own History Server (the newest pinned line, its default in-memory store)
// and in `sparkdx serve`, each started afresh in every iteration, and
// reports for each the time from its start to the first full answer (every
// application listed, and each attempt's jobs and stages answered) and its
// peak RSS, with the ratios History Server / sparkdx. Not a timed test: run
//
//	go test ./cmd/sparkdx -run '^$' -bench HistoryServerSideBySide -benchtime 1x
//
// Sets: the shared spark-events directory (Spark's own test logs), 20
// copies of it under new application ids, and the 40 MB YARN log in big/.
func BenchmarkHistoryServerSideBySide(b *testing.B) {
	lines := sparktest.SparkLines(b)
	line := lines[len(lines)-1]
	bin := buildSparkdx(b)
	sets := []struct {
		name string
		dir  func() string
	}{
		{"spark-events", func() string { return sparktest.Path(b, "spark-events") }},
		{"fleet-x20", func() string { dir, _ := fleetFixture(b, 20); return dir }},
		{"big-yarn-40MB", func() string { return sparktest.Path(b, "big") }},
	}
	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) {
			dir := set.dir()
			apps, err := replay.LoadApps(context.Background(), dir, replay.Options{})
			if err != nil {
				b.Fatal(err)
			}
			var hsTime, dxTime time.Duration
			var hsRSS, dxRSS int64
			for b.Loop() {
				start := time.Now()
				hs := sparktest.StartHistoryServer(b, line, dir, len(apps))
				fullAnswer(b, hs.URL, len(apps))
				hsTime += time.Since(start)
				hsRSS = max(hsRSS, peakRSS(b, hs.PID))
				hs.Stop()

				start = time.Now()
				dx := startServe(b, bin, dir, b.TempDir())
				fullAnswer(b, dx.url, len(apps))
				dxTime += time.Since(start)
				dxRSS = max(dxRSS, peakRSS(b, dx.cmd.Process.Pid))
				dx.cmd.Process.Kill()
				dx.cmd.Wait()
			}
			n := float64(b.N)
			b.ReportMetric(float64(hsTime.Milliseconds())/n, "hs-ms")
			b.ReportMetric(float64(dxTime.Milliseconds())/n, "sparkdx-ms")
			b.ReportMetric(hsTime.Seconds()/dxTime.Seconds(), "time-ratio")
			b.ReportMetric(float64(hsRSS)/(1<<20), "hs-peak-MB")
			b.ReportMetric(float64(dxRSS)/(1<<20), "sparkdx-peak-MB")
			b.ReportMetric(float64(hsRSS)/float64(dxRSS), "rss-ratio")
			b.Logf("Spark %s History Server vs sparkdx over %s (%d apps): %s vs %s to the first full answer, peak RSS %d MB vs %d MB",
				line.Version, set.name, len(apps), hsTime/time.Duration(b.N), dxTime/time.Duration(b.N), hsRSS>>20, dxRSS>>20)
		})
	}
}

// fullAnswer waits until the server at base lists apps applications and
// answers each attempt's jobs and stages.
func fullAnswer(b *testing.B, base string, apps int) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	var list []struct {
		ID       string `json:"id"`
		Attempts []struct {
			AttemptID string `json:"attemptId"`
		} `json:"attempts"`
	}
	for {
		list = nil
		if getJSONQuiet(base+"/api/v1/applications", &list) == nil && len(list) >= apps {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s lists %d applications after 10 minutes, want %d", base, len(list), apps)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, app := range list {
		for _, at := range app.Attempts {
			p := base + "/api/v1/applications/" + app.ID
			if at.AttemptID != "" {
				p += "/" + at.AttemptID
			}
			for _, doc := range []string{"/jobs", "/stages"} {
				for {
					status, body, err := hstest.Fetch(p + doc)
					if err == nil && status == http.StatusOK {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("GET %s: %d %v %s", p+doc, status, err, hstest.FirstLine(body))
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}
	}
}

func getJSONQuiet(u string, v any) error {
	status, body, err := hstest.Fetch(u)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: %d", u, status)
	}
	return json.Unmarshal(body, v)
}

// peakRSS is a process's peak resident set size (VmHWM), in bytes.
func peakRSS(b *testing.B, pid int) int64 {
	b.Helper()
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatalf("/proc/%d/status: VmHWM %q: %v", pid, v, err)
			}
			return kb << 10
		}
	}
	b.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0
}
