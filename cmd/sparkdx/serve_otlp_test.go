package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// inServe runs `sparkdx serve` in this process until stop is called.
type inServe struct {
	*serveProc
	stop func() (code int)
}

func runServeInProcess(t *testing.T, args ...string) *inServe {
	t.Helper()
	return runServeInProcessAt(t, sparktest.FreeAddr(t), args...)
}

// runServeInProcessAt is runServeInProcess listening on addr.
func runServeInProcessAt(t *testing.T, addr string, args ...string) *inServe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out sparktest.SyncBuffer
	codes := make(chan int, 1)
	go func() {
		codes <- run(ctx, append([]string{"serve", "--listen", addr, "--poll", "100ms"}, args...), nil, &out, &out)
	}()
	s := &inServe{serveProc: &serveProc{url: "http://" + addr, logs: &out}}
	stopped := false
	code := 0
	s.stop = func() int {
		if !stopped {
			stopped = true
			cancel()
			code = <-codes
		}
		return code
	}
	t.Cleanup(func() { s.stop() })
	return s
}

// serve tails a running application and exports it to a real collector
// after each step: one trace per attempt, with its application, job and
// stage spans each exactly once across the steps and a restart of serve
// in the middle, and finished logs exported the same way.
func TestServeOTLPToCollector(t *testing.T) {
	col := sparktest.StartCollector(t, sparktest.CollectorOptions{})
	logs := t.TempDir()
	const tailed, finished = "local-1422981759269", "local-1430917381534"
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", tailed))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sparktest.Path(t, "spark-events", finished))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logs, finished), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The tailed log grows in three steps, each ending jobs.
	lines := bytes.SplitAfter(src, []byte("\n"))
	steps := []int{len(lines) / 3, 2 * len(lines) / 3, len(lines)}
	inprogress := filepath.Join(logs, tailed+".inprogress")
	if err := os.WriteFile(inprogress, bytes.Join(lines[:steps[0]], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+col.GRPC) // the flag's default
	args := []string{"--event-logs", logs, "--data", t.TempDir(), "--otlp-task-sampling", "1", "--otlp-health-interval", "200ms"}
	s := runServeInProcess(t, args...)
	s.waitIdle(t)
	for i := 1; i < len(steps); i++ {
		f, err := os.OpenFile(inprogress, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(bytes.Join(lines[steps[i-1]:steps[i]], nil))
		f.Close()
		s.waitIdle(t)
		if i == 1 {
			// Still running: its ended jobs are out, without the application span.
			waitJobSpans(t, col, tailed)
			// A restart continues the running log and does not send
			// those spans again (checked with the duplicates below).
			if code := s.stop(); code != 0 {
				t.Fatalf("serve exited %d:\n%s", code, s.logs)
			}
			s = runServeInProcess(t, args...)
			if st := s.waitIdle(t); st["resumed"] != 1.0 {
				t.Errorf("restart: resumed %v running logs, want 1", st["resumed"])
			}
		}
	}
	if err := os.Rename(inprogress, filepath.Join(logs, tailed)); err != nil {
		t.Fatal(err)
	}
	s.waitIdle(t)
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, s.logs)
	}
	col.Stop(t)

	spans := col.Spans(t)
	byApp := map[string][]sparktest.Span{}
	traceApp := map[string]string{}
	seen := map[string]int{}
	for _, sp := range spans {
		seen[sp.TraceID+"/"+sp.SpanID]++
		if sp.Name == "spark.application" {
			traceApp[sp.TraceID] = sp.Attr("spark.app.id")
		}
	}
	for _, sp := range spans {
		byApp[traceApp[sp.TraceID]] = append(byApp[traceApp[sp.TraceID]], sp)
	}
	var dups []string
	for id, n := range seen {
		if n > 1 {
			dups = append(dups, fmt.Sprintf("%s×%d", id, n))
		}
	}
	sort.Strings(dups)
	if len(dups) > 0 {
		t.Errorf("spans exported more than once: %v", dups)
	}
	if _, ok := byApp[""]; ok {
		t.Errorf("%d spans in traces without an application span", len(byApp[""]))
	}
	for _, app := range []string{tailed, finished} {
		t.Run(app, func(t *testing.T) {
			f, err := os.Open(sparktest.Path(t, "spark-events", app))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			a, _, err := replay.Read(context.Background(), f, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			count := map[string]int{}
			traces := map[string]bool{}
			for _, sp := range byApp[app] {
				count[sp.Name]++
				traces[sp.TraceID] = true
			}
			stages := 0 // those that ran and ended
			for _, st := range a.Stages {
				if st.CompletionTime != model.NoTime && (st.SubmissionTime != model.NoTime || st.FirstLaunchTime != model.NoTime) {
					stages++
				}
			}
			if len(traces) != 1 || count["spark.application"] != 1 || count["spark.job"] != len(a.Jobs) || count["spark.stage"] != stages {
				t.Errorf("got %d traces, %d application, %d job, %d stage spans; want 1, 1, %d, %d (all: %v)",
					len(traces), count["spark.application"], count["spark.job"], count["spark.stage"], len(a.Jobs), stages, count)
			}
			if count["spark.task"] == 0 {
				t.Errorf("no task spans with --otlp-task-sampling 1")
			}
		})
	}
	if !strings.Contains(readFile(t, col.MetricsPath()), "sparkdx.serve") {
		t.Errorf("collector got no sparkdx.serve.* health metrics")
	}
}

// waitJobSpans waits until the collector has written job spans of app.
func waitJobSpans(t *testing.T, col *sparktest.Collector, app string) {
	t.Helper()
	path := col.TracesPath()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		jobs, apps := 0, 0
		for _, sp := range col.Spans(t) {
			if sp.Attr("spark.app.id") == app {
				switch sp.Name {
				case "spark.job":
					jobs++
				case "spark.application":
					apps++
				}
			}
		}
		if apps > 0 {
			t.Fatalf("running %s: got an application span before it ended", app)
		}
		if jobs > 0 {
			return
		}
	}
	t.Fatalf("running %s: no job span reached the collector in 20s", app)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
