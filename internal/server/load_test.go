package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// bigLines returns the first n lines of the big real log (decoded), and
// with end its last line (the application's end) after them.
func bigLines(b testing.TB, n int, end bool) [][]byte {
	b.Helper()
	logs, err := eventlog.Open(context.Background(), sparktest.Path(b, "big", "application_1701368813061_0008.zstd"), eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	r, err := logs[0].NewReader(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if n > len(lines) {
		n = len(lines)
	}
	out := lines[:n:n]
	if end {
		last := lines[len(lines)-1]
		if !bytes.Contains(last, []byte("SparkListenerApplicationEnd")) {
			b.Fatalf("last line of the big log is not the application end: %.100s", last)
		}
		out = append(out, append(last, '\n'))
	}
	return out
}

// latencies collects request durations.
type latencies struct {
	mu sync.Mutex
	d  map[string][]time.Duration
}

func (l *latencies) add(kind string, d time.Duration) {
	l.mu.Lock()
	l.d[kind] = append(l.d[kind], d)
	l.mu.Unlock()
}

// report reports each kind's p95, the p95 of all requests and the
// requests per second over seconds, and returns every latency.
func (l *latencies) report(b *testing.B, seconds float64) []time.Duration {
	var all []time.Duration
	for k, ds := range l.d {
		all = append(all, ds...)
		b.ReportMetric(float64(quantile(ds, 0.95).Microseconds())/1000, k+"-p95-ms")
	}
	b.ReportMetric(float64(quantile(all, 0.95).Microseconds())/1000, "all-p95-ms")
	b.ReportMetric(float64(len(all))/seconds, "req/s")
	return all
}

// pagePath is one page a load-test client reads, named for the report.
// One whose kind ends in firstView is asked with a query parameter of its
// own each time, so that no cache answers it.
type pagePath struct{ kind, path string }

const firstView = "-first-view"

// readPages GETs paths in turn, from the first-th on, until stop closes,
// recording each answer's latency by kind. With must200 any other status
// fails the benchmark; without it, only 200s are recorded.
func readPages(b *testing.B, base string, paths []pagePath, first int, must200 bool, stop <-chan struct{}, lat *latencies) {
	for k := first; ; k++ {
		select {
		case <-stop:
			return
		default:
		}
		p := paths[k%len(paths)]
		u := base + p.path
		if strings.HasSuffix(p.kind, firstView) {
			sep := "?"
			if strings.Contains(p.path, "?") {
				sep = "&"
			}
			u += fmt.Sprintf("%sfirst-view=%d-%d", sep, first, k)
		}
		t0 := time.Now()
		resp, err := http.Get(u)
		if err != nil {
			b.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			if must200 {
				b.Errorf("GET %s: %d", p.path, resp.StatusCode)
				return
			}
			continue
		}
		lat.add(p.kind, time.Since(t0))
	}
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func peakRSSMB() float64 { return rssMB("VmHWM:") }

// BenchmarkTailFleet tails 100 logs being written at once (each the first
// lines of a real 26k-event log, under its own app id, appended in 20
// steps) while 50 concurrent clients read /api/v1/applications, the
// fleet page and app pages. It reports the ingest rate and request
// latency quantiles; it passes or fails on nothing but errors.
func BenchmarkTailFleet(b *testing.B) {
	lines := bigLines(b, 3000, false)
	b.Run("ingest-only", func(b *testing.B) { benchTailFleet(b, lines, 0) })
	b.Run("50-clients", func(b *testing.B) { benchTailFleet(b, lines, 50) })
}

// BenchmarkClients runs 50 concurrent clients for 10s against a server
// holding the History Server test apps and 100 completed applications
// (the first 3000 events of a real log and its end); it reports latency
// quantiles per kind of request.
func BenchmarkClients(b *testing.B) {
	const clients, logs = 50, 100
	lines := bigLines(b, 3000, true)
	dir := b.TempDir()
	for j := range logs {
		id := fmt.Sprintf("application_1701368813061_8%03d", j)
		data := bytes.ReplaceAll(bytes.Join(lines, nil), []byte("application_1701368813061_0008"), []byte(id))
		if err := os.WriteFile(filepath.Join(dir, id), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ts := startServer(b, b.TempDir(), "", dir, sparktest.Path(b, "spark-events"))
	ts.waitIdle(b)
	for i := 0; i < b.N; i++ {
		lat := &latencies{d: map[string][]time.Duration{}}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				big := fmt.Sprintf("application_1701368813061_8%03d", c%logs)
				paths := []pagePath{
					{"api-applications", "/api/v1/applications"},
					{"fleet-page", "/"},
					{"app-page", "/apps/app-20200706201101-0003"},
					{"big-app-page", "/apps/" + big},
					{"api-stages", "/api/v1/applications/" + big + "/stages"},
				}
				readPages(b, ts.url, paths, c, true, stop, lat)
			}()
		}
		time.Sleep(10 * time.Second)
		close(stop)
		wg.Wait()
		all := lat.report(b, 10)
		b.ReportMetric(float64(quantile(all, 0.50).Microseconds())/1000, "all-p50-ms")
		b.ReportMetric(float64(quantile(all, 0.99).Microseconds())/1000, "all-p99-ms")
		b.ReportMetric(peakRSSMB(), "peak-rss-MB")
	}
}

func benchTailFleet(b *testing.B, lines [][]byte, clients int) {
	const logs, steps = 100, 20
	var events, size int
	for _, ln := range lines {
		if len(bytes.TrimSpace(ln)) > 0 {
			events++
		}
		size += len(ln)
	}
	b.SetBytes(int64(size * logs))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer() // setup is not timed; the timer runs only while logs are written and ingested
		dir := b.TempDir()
		ts := startServer(b, b.TempDir(), "", dir, sparktest.Path(b, "spark-events"))
		ts.waitIdle(b)
		files := make([]*os.File, logs)
		ids := make([]string, logs)
		for j := range files {
			ids[j] = fmt.Sprintf("application_1701368813061_9%03d", j)
			f, err := os.Create(filepath.Join(dir, ids[j]+".inprogress"))
			if err != nil {
				b.Fatal(err)
			}
			files[j] = f
		}
		lat := &latencies{d: map[string][]time.Duration{}}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				paths := []pagePath{
					{"api-applications", "/api/v1/applications"},
					{"fleet-page", "/"},
					{"app-page", "/apps/app-20200706201101-0003"},
					{"api-stages", "/api/v1/applications/app-20200706201101-0003/stages"},
					{"running-app-page", "/apps/" + ids[c%logs]},
				}
				// A running app's page may not exist yet: only 200s are timed.
				readPages(b, ts.url, paths, 0, false, stop, lat)
			}()
		}
		b.StartTimer() // (ResetTimer here zeroed every earlier iteration: ns/op read 0 for b.N ≥ 2)
		start := time.Now()
		before := ts.in.Status().Events
		// Each copy is an application of its own, so that its running
		// page can be asked for.
		bigID := []byte("application_1701368813061_0008")
		for s := range steps {
			lo, hi := s*len(lines)/steps, (s+1)*len(lines)/steps
			chunk := bytes.Join(lines[lo:hi], nil)
			own := bytes.Contains(chunk, bigID)
			for j, f := range files {
				c := chunk
				if own {
					c = bytes.ReplaceAll(chunk, bigID, []byte(ids[j]))
				}
				if _, err := f.Write(c); err != nil {
					b.Fatal(err)
				}
			}
		}
		want := before + int64(events*logs)
		for ts.in.Status().Events < want {
			if time.Since(start) > 5*time.Minute {
				b.Fatalf("ingested %d of %d events in 5 min", ts.in.Status().Events-before, events*logs)
			}
			time.Sleep(5 * time.Millisecond)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		close(stop)
		wg.Wait()
		for _, f := range files {
			f.Close()
		}
		b.ReportMetric(float64(events*logs)/elapsed.Seconds(), "events/s")
		var all []time.Duration
		kinds := make([]string, 0, len(lat.d))
		for k, ds := range lat.d {
			kinds = append(kinds, k)
			all = append(all, ds...)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			b.ReportMetric(float64(quantile(lat.d[k], 0.95).Microseconds())/1000, k+"-p95-ms")
		}
		if clients > 0 {
			b.ReportMetric(float64(quantile(all, 0.50).Microseconds())/1000, "all-p50-ms")
			b.ReportMetric(float64(quantile(all, 0.95).Microseconds())/1000, "all-p95-ms")
			b.ReportMetric(float64(len(all)), "requests")
		}
		b.ReportMetric(peakRSSMB(), "peak-rss-MB")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MB")
		ts.stop()
		ts.stop = nil
	}
}

// bigStageJobTask is the job that ran a stage of the big log and the stage
// attempt 0's last task, for the job and task pages.
func bigStageJobTask(b *testing.B, ts *testServer, stage int) (job int, task int64) {
	const api = "/api/v1/applications/application_1701368813061_0008"
	var jobs []struct {
		JobID    int   `json:"jobId"`
		StageIDs []int `json:"stageIds"`
	}
	ts.getJSON(b, api+"/jobs", &jobs)
	job = -1
	for _, j := range jobs {
		if slices.Contains(j.StageIDs, stage) {
			job = j.JobID
		}
	}
	var tasks []struct {
		TaskID int64 `json:"taskId"`
	}
	ts.getJSON(b, fmt.Sprintf("%s/stages/%d/0/taskList?offset=2000&length=1", api, stage), &tasks)
	if job < 0 || len(tasks) != 1 {
		b.Fatalf("big log: no job ran stage %d, or it has no task 2000 (%d)", stage, len(tasks))
	}
	return job, tasks[0].TaskID
}

// BenchmarkPages measures one request of each kind on the History Server
// test directory (17 apps), served from memory after ingest.
func BenchmarkPages(b *testing.B) {
	ts := startServer(b, b.TempDir(), "", sparktest.Path(b, "spark-events"))
	ts.waitIdle(b)
	benchGets(b, ts, "", "/api/v1/applications", "/", "/apps/app-20200706201101-0003",
		"/api/v1/applications/app-20200706201101-0003/stages", "/api/sparkdx/v1/apps",
		"/api/sparkdx/v1/apps/app-20200706201101-0003/report")
}

// benchGets measures one GET of each path (prefix+path), each a
// sub-benchmark named after the path.
func benchGets(b *testing.B, ts *testServer, prefix string, paths ...string) {
	for _, p := range paths {
		b.Run(strings.ReplaceAll(strings.Trim(p, "/"), "/", "_"), func(b *testing.B) {
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				code, body := ts.get(b, prefix+p)
				if code != 200 {
					b.Fatalf("GET %s: %d", prefix+p, code)
				}
				n = int64(len(body))
			}
			b.SetBytes(n)
		})
	}
}

// BenchmarkBigAppPages measures each drill-down page of the big real log
// (NDS power run: 41 stage attempts, 13k tasks; its largest stage 2,185),
// its model cached after the first request.
func BenchmarkBigAppPages(b *testing.B) {
	dir := b.TempDir()
	src := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		b.Fatal(err)
	}
	ts := startServer(b, b.TempDir(), "", dir)
	ts.waitIdle(b)
	benchGets(b, ts, "/apps/application_1701368813061_0008", "", "/jobs", "/stages/23/0", "/stages/23/0?sort=-runtime&offset=1000",
		"/executors", "/environment", "/sql", "/sql/1")
}

// BenchmarkDrillDownUnderIngest reads the big real log's drill-down pages
// (the model cached) with 8 clients while 20 growing copies of the log are
// tailed, and reports each page's p95 latency: seen again (from the page
// cache) and as a first view (rendered from the model).
func BenchmarkDrillDownUnderIngest(b *testing.B) {
	const clients, growing, steps = 8, 20, 10
	dir := b.TempDir()
	src := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
		b.Fatal(err)
	}
	lines := bigLines(b, 3000, false)
	ts := startServer(b, b.TempDir(), "", dir)
	ts.waitIdle(b)
	const app = "/apps/application_1701368813061_0008"
	job, task := bigStageJobTask(b, ts, 23)
	paths := []pagePath{{"app", app}, {"jobs", app + "/jobs"}, {"job", fmt.Sprintf("%s/jobs/%d", app, job)},
		{"stage-2185-tasks", app + "/stages/23/0"}, {"stage-sorted-page", app + "/stages/23/0?sort=-runtime&offset=1000"},
		{"task", fmt.Sprintf("%s/stages/23/0/tasks/%d", app, task)}, {"executors", app + "/executors"},
		{"environment", app + "/environment"}, {"sql", app + "/sql"}, {"query", app + "/sql/1"},
		{"compare", "/compare?a=application_1701368813061_0008&b=application_1701368813061_0008"}}
	// Each drill-down page also as a first view, which no cache answers.
	for _, p := range paths[1 : len(paths)-1] {
		paths = append(paths, pagePath{p.kind + firstView, p.path})
	}
	for _, p := range paths { // the model is read once, before the clock
		if code, _ := ts.get(b, p.path); code != 200 {
			b.Fatalf("GET %s: %d", p.path, code)
		}
	}
	for i := 0; i < b.N; i++ {
		lat := &latencies{d: map[string][]time.Duration{}}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() { defer wg.Done(); readPages(b, ts.url, paths, c, true, stop, lat) }()
		}
		// Ingest runs all along: growing logs get a tenth more each step.
		per := len(lines) / steps
		for step := range steps {
			for j := range growing {
				id := fmt.Sprintf("application_1701368813061_9%03d", i*growing+j)
				name := filepath.Join(dir, id+".inprogress")
				chunk := bytes.ReplaceAll(bytes.Join(lines[step*per:(step+1)*per], nil), []byte("application_1701368813061_0008"), []byte(id))
				f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					b.Fatal(err)
				}
				f.Write(chunk)
				f.Close()
			}
			time.Sleep(500 * time.Millisecond)
		}
		close(stop)
		wg.Wait()
		lat.report(b, steps*0.5)
	}
}
