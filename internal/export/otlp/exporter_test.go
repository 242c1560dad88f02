package otlp

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// metricSink is a hand-written sdkmetric.Exporter keeping what it got.
type metricSink struct {
	mu  sync.Mutex
	got []metricdata.ResourceMetrics
}

func (m *metricSink) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality { return delta(k) }
func (m *metricSink) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}
func (m *metricSink) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got = append(m.got, *rm)
	return nil
}
func (m *metricSink) ForceFlush(context.Context) error { return nil }
func (m *metricSink) Shutdown(context.Context) error   { return nil }

func (m *metricSink) names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, rm := range m.got {
		for _, sm := range rm.ScopeMetrics {
			for _, x := range sm.Metrics {
				if !slices.Contains(out, x.Name) {
					out = append(out, x.Name)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func replayShared(t testing.TB, name string) (*model.Attempt, *analyze.Result) {
	t.Helper()
	a, r, _ := replayPath(t, "spark-events", name)
	return a, r
}

// replayPath replays a shared log and returns its decoded size too.
func replayPath(t testing.TB, elem ...string) (*model.Attempt, *analyze.Result, int64) {
	t.Helper()
	logs, err := eventlog.Open(context.Background(), sparktest.Path(t, elem...), eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, st, err := replay.Log(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a, analyze.Analyze(a), st.Bytes
}

func newTestExporter(t testing.TB, cfg Config) (*Exporter, *tracetest.InMemoryExporter, *metricSink) {
	t.Helper()
	if cfg.Endpoint == "" {
		cfg.Endpoint = "127.0.0.1:4317"
	}
	spans, metrics := tracetest.NewInMemoryExporter(), &metricSink{}
	e, err := build(context.Background(), cfg, spans, metrics)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Shutdown(context.Background()) })
	return e, spans, metrics
}

// spanTree indexes exported spans by id.
type spanTree map[trace.SpanID]tracetest.SpanStub

func treeOf(stubs tracetest.SpanStubs) spanTree {
	t := spanTree{}
	for _, s := range stubs {
		t[s.SpanContext.SpanID()] = s
	}
	return t
}

func (t spanTree) named(name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range t {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func attr(s tracetest.SpanStub, key string) (string, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit(), true
		}
	}
	return "", false
}

// checkTree checks the span tree of one exported attempt against the
// model: one application span, a job span per finished job under it, a
// stage span per finished stage under one of its jobs, times from the log.
func checkTree(t *testing.T, a *model.Attempt, tree spanTree, appParent trace.SpanContext) {
	t.Helper()
	apps := tree.named(spanApp)
	if len(apps) != 1 {
		t.Fatalf("got %d application spans, want 1", len(apps))
	}
	app := apps[0]
	if app.Parent.SpanID() != appParent.SpanID() {
		t.Errorf("application span parent: got %s, want %s", app.Parent.SpanID(), appParent.SpanID())
	}
	if appParent.IsValid() && app.SpanContext.TraceID() != appParent.TraceID() {
		t.Errorf("application trace: got %s, want the traceparent's %s", app.SpanContext.TraceID(), appParent.TraceID())
	}
	if got, want := app.StartTime.UnixMilli(), a.StartTime; got != want {
		t.Errorf("application start: got %d, want %d", got, want)
	}
	if got, want := app.EndTime.UnixMilli(), a.EndTime; got != want {
		t.Errorf("application end: got %d, want %d", got, want)
	}
	jobs := map[int]tracetest.SpanStub{}
	for _, s := range tree.named(spanJob) {
		id, _ := attr(s, "spark.job.id")
		jobs[atoi(t, id)] = s
	}
	for _, j := range a.Jobs {
		s, ok := jobs[j.ID]
		if !ok {
			t.Errorf("job %d: no span", j.ID)
			continue
		}
		if j.TraceParent == "" && s.Parent.SpanID() != app.SpanContext.SpanID() {
			t.Errorf("job %d: parent %s, want the application span %s", j.ID, s.Parent.SpanID(), app.SpanContext.SpanID())
		}
		if j.SubmissionTime != model.NoTime && (s.StartTime.UnixMilli() != j.SubmissionTime || s.EndTime.UnixMilli() != j.CompletionTime) {
			t.Errorf("job %d: got %d..%d, want %d..%d", j.ID, s.StartTime.UnixMilli(), s.EndTime.UnixMilli(), j.SubmissionTime, j.CompletionTime)
		}
	}
	if len(jobs) != len(a.Jobs) {
		t.Errorf("got %d job spans, want %d", len(jobs), len(a.Jobs))
	}
	stages := 0
	for _, s := range tree.named(spanStage) {
		stages++
		parent, ok := tree[s.Parent.SpanID()]
		if !ok || parent.Name != spanJob {
			t.Errorf("stage span %s: parent %s is not a job span", s.SpanContext.SpanID(), s.Parent.SpanID())
			continue
		}
		id, _ := attr(s, "spark.stage.id")
		att, _ := attr(s, "spark.stage.attempt_id")
		st := a.Stage(atoi(t, id), atoi(t, att))
		if st == nil {
			t.Errorf("stage span for unknown stage %s.%s", id, att)
			continue
		}
		if s.EndTime.UnixMilli() != st.CompletionTime {
			t.Errorf("stage %s.%s: end %d, want %d", id, att, s.EndTime.UnixMilli(), st.CompletionTime)
		}
		jid, _ := attr(parent, "spark.job.id")
		if !slices.Contains(st.JobIDs, atoi(t, jid)) {
			t.Errorf("stage %s.%s under job %s, want one of %v", id, att, jid, st.JobIDs)
		}
	}
	want := 0
	for _, s := range a.Stages {
		if s.CompletionTime != model.NoTime && (s.SubmissionTime != model.NoTime || s.FirstLaunchTime != model.NoTime) {
			want++
		}
	}
	if stages != want {
		t.Errorf("got %d stage spans, want %d", stages, want)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func TestTraceTree(t *testing.T) {
	for _, name := range []string{"local-1430917381534", "application_1553914137147_0018", "app-20161115172038-0000",
		"local-1422981759269"} { // the last from Spark 1.2: jobs without times
		t.Run(name, func(t *testing.T) {
			a, r := replayShared(t, name)
			e, spans, metrics := newTestExporter(t, Config{})
			if err := e.ExportApp(context.Background(), a, r); err != nil {
				t.Fatal(err)
			}
			checkTree(t, a, treeOf(spans.GetSpans()), trace.SpanContext{})
			if len(spans.GetSpans().Snapshots()) == 0 {
				t.Fatal("no spans")
			}
			want := []string{"spark.app.core.wasted_time", "spark.app.duration", "spark.app.phase.duration",
				"spark.executor.memory.peak", "spark.executor.utilization", "spark.task.duration"}
			if got := metrics.names(); !slices.Equal(got, want) {
				t.Errorf("metrics: got %v, want %v", got, want)
			}
		})
	}
}

const (
	appParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	jobParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
)

// A traceparent in spark.otel.traceparent parents the application span; a
// job's own traceparent parents that job (linked back to the application),
// and its stages follow the job.
func TestTraceParents(t *testing.T) {
	a, r := replayShared(t, "local-1430917381534")
	a.Env.SparkProperties = append(a.Env.SparkProperties, [2]string{"spark.otel.traceparent", appParent},
		[2]string{"spark.openlineage.parentJobNamespace", "airflow"}, [2]string{"spark.openlineage.parentJobName", "dag.task"},
		[2]string{"spark.openlineage.parentRunId", "01890e3a-0000-7000-8000-000000000001"})
	a.Jobs[0].TraceParent = jobParent
	e, spans, _ := newTestExporter(t, Config{})
	if err := e.ExportApp(context.Background(), a, r); err != nil {
		t.Fatal(err)
	}
	tree := treeOf(spans.GetSpans())
	want, _ := remoteParent(appParent, "")
	checkTree(t, a, tree, want)
	app := tree.named(spanApp)[0]
	for key, val := range map[string]string{"openlineage.parent.job.namespace": "airflow",
		"openlineage.parent.job.name": "dag.task", "openlineage.parent.run.id": "01890e3a-0000-7000-8000-000000000001"} {
		if got, _ := attr(app, key); got != val {
			t.Errorf("application attribute %s: got %q, want %q", key, got, val)
		}
	}
	jp, _ := remoteParent(jobParent, "")
	var job0 tracetest.SpanStub
	for _, s := range tree.named(spanJob) {
		if id, _ := attr(s, "spark.job.id"); id == "0" {
			job0 = s
		}
	}
	if job0.SpanContext.TraceID() != jp.TraceID() || job0.Parent.SpanID() != jp.SpanID() {
		t.Errorf("job 0: got trace %s parent %s, want %s %s", job0.SpanContext.TraceID(), job0.Parent.SpanID(), jp.TraceID(), jp.SpanID())
	}
	if len(job0.Links) != 1 || job0.Links[0].SpanContext.SpanID() != app.SpanContext.SpanID() {
		t.Errorf("job 0: got links %v, want one to the application span", job0.Links)
	}
	for _, s := range tree.named(spanStage) {
		if s.Parent.SpanID() == job0.SpanContext.SpanID() && s.SpanContext.TraceID() != jp.TraceID() {
			t.Errorf("stage under job 0 in trace %s, want the job's %s", s.SpanContext.TraceID(), jp.TraceID())
		}
	}
}

// A running application exports its finished jobs and stages; later calls
// add only what finished since, and the application span comes last.
func TestRunningAppExportsOnce(t *testing.T) {
	a, r := replayShared(t, "local-1430917381534")
	e, spans, _ := newTestExporter(t, Config{})
	running := *r
	running.Completed = false
	if err := e.ExportApp(context.Background(), a, &running); err != nil {
		t.Fatal(err)
	}
	first := len(spans.GetSpans())
	if n := len(treeOf(spans.GetSpans()).named(spanApp)); n != 0 {
		t.Errorf("running app: got %d application spans, want 0", n)
	}
	if err := e.ExportApp(context.Background(), a, &running); err != nil {
		t.Fatal(err)
	}
	if got := len(spans.GetSpans()); got != first {
		t.Errorf("second export of an unchanged running app: got %d spans, want %d", got, first)
	}
	if err := e.ExportApp(context.Background(), a, r); err != nil {
		t.Fatal(err)
	}
	if got := len(spans.GetSpans()); got != first+1 {
		t.Errorf("after the end: got %d spans, want %d (the application span added)", got, first+1)
	}
	checkTree(t, a, treeOf(spans.GetSpans()), trace.SpanContext{})
	if n := len(e.sent); n != 0 {
		t.Errorf("after the end: %d attempts remembered, want 0", n)
	}
	if err := e.ExportApp(context.Background(), a, &running); err != nil {
		t.Fatal(err)
	}
	e.Forget(a.AppID, a.AttemptID)
	if n := len(e.sent); n != 0 {
		t.Errorf("after Forget: %d attempts remembered, want 0", n)
	}
}

func TestSampling(t *testing.T) {
	a, r := replayShared(t, "local-1430917381534")
	tasks := 0
	for _, s := range a.Stages {
		for _, k := range s.Tasks {
			if k.FinishTime != 0 && k.LaunchTime > 0 {
				tasks++
			}
		}
	}
	for _, tc := range []struct {
		name        string
		cfg         Config
		traceParent string
		wantTasks   int
		wantNone    bool
	}{
		{"no tasks by default", Config{}, "", 0, false},
		{"every task", Config{TaskSamplingRatio: 1}, "", tasks, false},
		{"trace dropped by ratio", Config{SamplingRatio: 1e-12}, "", 0, true},
		{"traceparent sampled flag wins", Config{SamplingRatio: 1e-12}, appParent, 0, false},
		{"traceparent unsampled", Config{}, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := *a
			a.Env.SparkProperties = append([][2]string(nil), a.Env.SparkProperties...)
			if tc.traceParent != "" {
				a.Env.SparkProperties = append(a.Env.SparkProperties, [2]string{"spark.otel.traceparent", tc.traceParent})
			}
			e, spans, _ := newTestExporter(t, tc.cfg)
			if err := e.ExportApp(context.Background(), &a, r); err != nil {
				t.Fatal(err)
			}
			tree := treeOf(spans.GetSpans())
			if tc.wantNone {
				if len(tree) != 0 {
					t.Errorf("got %d spans, want none", len(tree))
				}
				return
			}
			if got := len(tree.named(spanTask)); got != tc.wantTasks {
				t.Errorf("got %d task spans, want %d", got, tc.wantTasks)
			}
			for _, s := range tree.named(spanTask) {
				if p, ok := tree[s.Parent.SpanID()]; !ok || p.Name != spanStage {
					t.Errorf("task span %s: parent is not a stage span", s.SpanContext.SpanID())
				}
			}
		})
	}
}

func TestExportHealth(t *testing.T) {
	e, _, metrics := newTestExporter(t, Config{})
	if err := e.ExportHealth(context.Background(), Health{IngestLag: 3 * time.Second, QueueDepth: 2, Logs: 9}); err != nil {
		t.Fatal(err)
	}
	want := []string{"sparkdx.serve.ingest.lag", "sparkdx.serve.logs", "sparkdx.serve.queue.size"}
	if got := metrics.names(); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	var lag float64
	for _, rm := range metrics.got {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if g, ok := m.Data.(metricdata.Gauge[float64]); ok && m.Name == "sparkdx.serve.ingest.lag" {
					lag = g.DataPoints[0].Value
				}
			}
		}
	}
	if lag != 3 {
		t.Errorf("ingest lag: got %v, want 3", lag)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"grpc host:port", Config{Endpoint: "collector:4317"}, true},
		{"http url", Config{Endpoint: "http://collector:4318", Protocol: "http/protobuf"}, true},
		{"no endpoint", Config{}, false},
		{"bad scheme", Config{Endpoint: "ftp://x:1"}, false},
		{"bad protocol", Config{Endpoint: "x:1", Protocol: "thrift"}, false},
		{"ratio above 1", Config{Endpoint: "x:1", SamplingRatio: 1.5}, false},
		{"negative task ratio", Config{Endpoint: "x:1", TaskSamplingRatio: -0.1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Errorf("got %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestSignalURL(t *testing.T) {
	for _, tc := range []struct {
		cfg          Config
		signal, want string
	}{
		{Config{Endpoint: "c:4317"}, "traces", "http://c:4317"},
		{Config{Endpoint: "https://c:4317/"}, "traces", "https://c:4317"},
		{Config{Endpoint: "http://c:4318", Protocol: "http"}, "metrics", "http://c:4318/v1/metrics"},
		{Config{Endpoint: "http://c:4318/otlp/", Protocol: "http/protobuf"}, "traces", "http://c:4318/otlp/v1/traces"},
	} {
		if got := tc.cfg.signalURL(tc.signal); got != tc.want {
			t.Errorf("%+v %s: got %s, want %s", tc.cfg, tc.signal, got, tc.want)
		}
	}
}

// BenchmarkExportApp measures building and exporting (to memory) every
// span, tasks included, of real applications; bytes are the decoded log's.
func BenchmarkExportApp(b *testing.B) {
	for _, tc := range []struct {
		name string
		path []string
	}{
		{"local", []string{"spark-events", "local-1430917381534"}},
		{"big", []string{"big", "application_1701368813061_0008.zstd"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			a, r, size := replayPath(b, tc.path...)
			e, spans, _ := newTestExporter(b, Config{TaskSamplingRatio: 1})
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := e.ExportApp(context.Background(), a, r); err != nil {
					b.Fatal(err)
				}
				spans.Reset()
			}
		})
	}
}

// BenchmarkExportAppRunning is serve's steady state after each tail step
// of a running application whose spans already went out: the analysis of
// the whole model plus ExportApp finding nothing new to send.
func BenchmarkExportAppRunning(b *testing.B) {
	a, _, size := replayPath(b, "big", "application_1701368813061_0008.zstd")
	a.Completed = false // still running: the exporter keeps what it sent
	e, spans, _ := newTestExporter(b, Config{TaskSamplingRatio: 1})
	if err := e.ExportApp(context.Background(), a, analyze.Analyze(a)); err != nil {
		b.Fatal(err)
	}
	first := len(spans.GetSpans())
	spans.Reset()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if err := e.ExportApp(context.Background(), a, analyze.Analyze(a)); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(spans.GetSpans()); n != 0 || first == 0 {
		b.Fatalf("first export sent %d spans, the later ones %d; want some, then none", first, n)
	}
}

// A streaming query's last micro-batch is exported as Spark reported it,
// one series per query (the streaming scenario's real Spark 4.3 log).
func TestStreamingMetrics(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "scenarios", "streaming", "spark-4.3.0")
	logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := replay.Log(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Streaming) != 1 || len(a.Streaming[0].Progress) == 0 {
		t.Fatalf("got %d streaming queries, want 1 with progress", len(a.Streaming))
	}
	q := a.Streaming[0]
	last := q.Progress[len(q.Progress)-1]
	e, _, metrics := newTestExporter(t, Config{})
	if err := e.ExportApp(context.Background(), a, analyze.Analyze(a)); err != nil {
		t.Fatal(err)
	}
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{
		"spark.streaming.batch.duration": float64(last.BatchDurationMs) / 1000,
		"spark.streaming.input.rate":     last.InputRowsPerSecond,
		"spark.streaming.process.rate":   last.ProcessedRowsPerSecond,
		"spark.streaming.state.rows":     float64(last.StateRows),
		"spark.streaming.state.memory":   float64(last.StateMemoryBytes),
	} {
		got := metrics.points(name)
		if len(got) != 1 {
			t.Errorf("%s: got %d points, want 1 (one query)", name, len(got))
			continue
		}
		if got[0].value != want || got[0].attrs["spark.streaming.query.id"] != q.ID || got[0].attrs["spark.streaming.query.name"] != "counts" {
			t.Errorf("%s: got %v %v, want %v for query %s (counts)", name, got[0].value, got[0].attrs, want, q.ID)
		}
	}
	if last.StateRows == 0 || last.BatchDurationMs == 0 {
		t.Errorf("last batch %+v: want state rows and a duration (an aggregation query)", last)
	}
}

// point is one gauge data point: its value and string attributes.
type point struct {
	value float64
	attrs map[string]string
}

// points returns the data points of the gauge named name.
func (m *metricSink) points(name string) []point {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []point
	attrs := func(s attribute.Set) map[string]string {
		a := map[string]string{}
		for _, kv := range s.ToSlice() {
			a[string(kv.Key)] = kv.Value.Emit()
		}
		return a
	}
	for _, rm := range m.got {
		for _, sm := range rm.ScopeMetrics {
			for _, x := range sm.Metrics {
				if x.Name != name {
					continue
				}
				switch d := x.Data.(type) {
				case metricdata.Gauge[float64]:
					for _, p := range d.DataPoints {
						out = append(out, point{p.Value, attrs(p.Attributes)})
					}
				case metricdata.Gauge[int64]:
					for _, p := range d.DataPoints {
						out = append(out, point{float64(p.Value), attrs(p.Attributes)})
					}
				}
			}
		}
	}
	return out
}
