package otlp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// The real peer: sparkdx-otelcol, an OpenTelemetry Collector v0.160 built
// from testdata/otelcol (an OTLP receiver and the file exporter; .ci/install
// builds it). The tests send over gRPC and HTTP and read back what the
// collector wrote.

// OTLP JSON, as the file exporter writes it (only the fields checked).
type otlpSpan struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Start        string `json:"startTimeUnixNano"`
	End          string `json:"endTimeUnixNano"`
	Attributes   []struct {
		Key   string `json:"key"`
		Value struct {
			String string `json:"stringValue"`
			Int    string `json:"intValue"`
		} `json:"value"`
	} `json:"attributes"`
	Events []struct {
		Name string `json:"name"`
	} `json:"events"`
}

func (s otlpSpan) attr(key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.String + a.Value.Int
		}
	}
	return ""
}

func (s otlpSpan) startMs(t *testing.T) int64 {
	n, err := strconv.ParseInt(s.Start, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n / 1e6
}

func readLines(t *testing.T, path string, each func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		each(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func readSpans(t *testing.T, path string) (spans []otlpSpan, services []string) {
	t.Helper()
	readLines(t, path, func(line []byte) {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string `json:"key"`
						Value struct {
							String string `json:"stringValue"`
						} `json:"value"`
					} `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" && !slices.Contains(services, a.Value.String) {
					services = append(services, a.Value.String)
				}
			}
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	})
	return spans, services
}

func readMetricNames(t *testing.T, path string) []string {
	t.Helper()
	var names []string
	readLines(t, path, func(line []byte) {
		var req struct {
			ResourceMetrics []struct {
				ScopeMetrics []struct {
					Metrics []struct {
						Name string `json:"name"`
					} `json:"metrics"`
				} `json:"scopeMetrics"`
			} `json:"resourceMetrics"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if !slices.Contains(names, m.Name) {
						names = append(names, m.Name)
					}
				}
			}
		}
	})
	slices.Sort(names)
	return names
}

func TestCollectorReceives(t *testing.T) {
	for _, proto := range []string{ProtocolGRPC, ProtocolHTTP} {
		t.Run(proto, func(t *testing.T) {
			a, r := replayShared(t, "local-1422981759269") // four jobs
			a.Env.SparkProperties = append(a.Env.SparkProperties, [2]string{"spark.otel.traceparent", appParent})
			a.Jobs[1].TraceParent = jobParent
			c := sparktest.StartCollector(t, sparktest.CollectorOptions{})
			endpoint := "http://" + c.GRPC
			if proto == ProtocolHTTP {
				endpoint = "http://" + c.HTTP
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			e, err := New(ctx, Config{Endpoint: endpoint, Protocol: proto, ServiceName: "sparkdx-test", TaskSamplingRatio: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.ExportApp(ctx, a, r); err != nil {
				t.Fatal(err)
			}
			if err := e.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			c.Stop(t)
			spans, services := readSpans(t, c.TracesPath())
			checkCollected(t, a, spans)
			if !slices.Equal(services, []string{"sparkdx-test"}) {
				t.Errorf("got services %v, want [sparkdx-test]", services)
			}
			want := []string{"spark.app.core.wasted_time", "spark.app.duration", "spark.app.phase.duration",
				"spark.executor.memory.peak", "spark.executor.utilization", "spark.task.duration"}
			if got := readMetricNames(t, c.MetricsPath()); !slices.Equal(got, want) {
				t.Errorf("metrics: got %v, want %v", got, want)
			}
		})
	}
}

// checkCollected checks the span tree as the collector wrote it.
func checkCollected(t *testing.T, a *model.Attempt, spans []otlpSpan) {
	t.Helper()
	byID := map[string]otlpSpan{}
	count := map[string]int{}
	for _, s := range spans {
		byID[s.SpanID] = s
		count[s.Name]++
	}
	ap, _ := remoteParent(appParent, "")
	jp, _ := remoteParent(jobParent, "")
	var app otlpSpan
	for _, s := range spans {
		if s.Name == spanApp {
			app = s
		}
	}
	if count[spanApp] != 1 || app.TraceID != ap.TraceID().String() || app.ParentSpanID != ap.SpanID().String() {
		t.Fatalf("application span: got %d, trace %s parent %s; want 1 in trace %s under %s",
			count[spanApp], app.TraceID, app.ParentSpanID, ap.TraceID(), ap.SpanID())
	}
	if got := app.startMs(t); got != a.StartTime {
		t.Errorf("application start: got %d, want %d", got, a.StartTime)
	}
	if got := app.attr("spark.app.id"); got != a.AppID {
		t.Errorf("spark.app.id: got %q, want %q", got, a.AppID)
	}
	if count[spanJob] != len(a.Jobs) {
		t.Errorf("got %d job spans, want %d", count[spanJob], len(a.Jobs))
	}
	for _, s := range spans {
		switch s.Name {
		case spanJob:
			id, _ := strconv.Atoi(s.attr("spark.job.id"))
			j := a.Job(id)
			if j == nil {
				t.Errorf("job span for unknown job %d", id)
				continue
			}
			wantParent, wantTrace := app.SpanID, app.TraceID
			if j.TraceParent != "" {
				wantParent, wantTrace = jp.SpanID().String(), jp.TraceID().String()
			}
			if s.ParentSpanID != wantParent || s.TraceID != wantTrace {
				t.Errorf("job %d: trace %s parent %s, want %s %s", id, s.TraceID, s.ParentSpanID, wantTrace, wantParent)
			}
			if got := s.startMs(t); j.SubmissionTime != model.NoTime && got != j.SubmissionTime {
				t.Errorf("job %d start: got %d, want %d", id, got, j.SubmissionTime)
			}
		case spanStage:
			if p, ok := byID[s.ParentSpanID]; !ok || p.Name != spanJob || p.TraceID != s.TraceID {
				t.Errorf("stage %s: parent %s is not a job span of its trace", s.attr("spark.stage.id"), s.ParentSpanID)
			}
		case spanTask:
			if p, ok := byID[s.ParentSpanID]; !ok || p.Name != spanStage {
				t.Errorf("task %s: parent %s is not a stage span", s.attr("spark.task.id"), s.ParentSpanID)
			}
		}
	}
	if count[spanStage] == 0 || count[spanTask] == 0 {
		t.Errorf("got %d stage and %d task spans, want some of each", count[spanStage], count[spanTask])
	}
}

// A collector that is not there costs at most about Timeout, not the
// SDK's default minutes of retries, and ExportApp says so.
func TestDeadCollector(t *testing.T) {
	a, r := replayShared(t, "local-1430917381534")
	for _, proto := range []string{ProtocolGRPC, ProtocolHTTP} {
		t.Run(proto, func(t *testing.T) {
			addr := "http://" + sparktest.FreeAddr(t) // closed again: nothing listens
			e, err := New(context.Background(), Config{Endpoint: addr, Protocol: proto, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = e.ExportApp(context.Background(), a, r)
			if err == nil {
				t.Error("got no error exporting to a closed port")
			}
			_ = e.Shutdown(context.Background())
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("export to a dead collector took %s, want about the 1s timeout", d)
			}
		})
	}
}
