package otlp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// TestCallerTraceParents exports the real Spark 4.3.0 logs of
// cmd/sparkdx's TestServeTraceContextFromCaller (testdata/traceparent,
// rewritten by its -update): a Spark Connect server whose Python client
// (the OpenTelemetry SDK, as an Airflow task) set spark.otel.traceparent
// with spark.conf.set for one job and a "traceparent=…" tag for another,
// and a classic spark-submit --conf spark.otel.traceparent whose program
// tagged its second job with a child span's context. cases.json holds what
// the caller printed: case → the traceparent of the span that should own
// the jobs tagged "sparkdx-case=<case>" ("-": the application span).
//
// Spark wrote the tags with its own prefixes
// ("SparkConnect_SessionTag_User__Session_<id>_Tag_traceparent=…",
// "spark-session-<id>-thread-<id>-traceparent=…") and copied the
// submit-time spark.otel.traceparent into every job's properties.
func TestCallerTraceParents(t *testing.T) {
	const dir = "testdata/traceparent"
	b, err := os.ReadFile(dir + "/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]string
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 {
		t.Fatalf("got %d logs in %s, want 2 (the Connect server's and the submitted application's)", len(logs), dir)
	}
	e, spans, _ := newTestExporter(t, Config{})
	for _, l := range logs {
		a, _, err := replay.Log(context.Background(), l, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.ExportApp(context.Background(), a, analyze.Analyze(a)); err != nil {
			t.Fatal(err)
		}
	}
	apps := map[string]tracetest.SpanStub{}
	for _, s := range spans.GetSpans() {
		if s.Name == spanApp {
			id, _ := attr(s, "spark.app.id")
			apps[id] = s
		}
	}
	jobs := map[string]int{}
	for _, s := range spans.GetSpans() {
		if s.Name != spanJob {
			continue
		}
		c := jobCase(s)
		jobs[c]++
		appID, _ := attr(s, "spark.app.id")
		app := apps[appID]
		want := app.SpanContext
		if tp := cases[c]; tp != "-" && c != "submit" {
			want, _ = remoteParent(tp, "")
		}
		if s.SpanContext.TraceID() != want.TraceID() || s.Parent.SpanID() != want.SpanID() {
			id, _ := attr(s, "spark.job.id")
			t.Errorf("case %s: job %s is in trace %s under %s, want %s under %s", c, id,
				s.SpanContext.TraceID(), s.Parent.SpanID(), want.TraceID(), want.SpanID())
		}
		if moved := want.SpanID() != app.SpanContext.SpanID(); moved != (len(s.Links) == 1) {
			t.Errorf("case %s: got %d links, want one to the application span exactly when the caller owns the job", c, len(s.Links))
		}
	}
	for c := range cases {
		if jobs[c] == 0 {
			t.Errorf("case %s: no job span (jobs by case: %v)", c, jobs)
		}
	}
	submitted, _ := remoteParent(cases["submit"], "")
	var parents []trace.SpanContext
	for _, app := range apps {
		parents = append(parents, app.Parent)
	}
	if len(apps) != 2 || !(parents[0].Equal(submitted) && !parents[1].IsValid() || parents[1].Equal(submitted) && !parents[0].IsValid()) {
		t.Errorf("application parents: got %v, want the submitted application's %s and none for the Connect server", parents, submitted.SpanID())
	}
}

// jobCase is the value of the job's "sparkdx-case=" tag, whatever prefix
// Spark gave it.
func jobCase(s tracetest.SpanStub) string {
	for _, kv := range s.Attributes {
		if kv.Key != "spark.job.tags" {
			continue
		}
		for _, tag := range kv.Value.AsStringSlice() {
			if i := strings.LastIndex(tag, "sparkdx-case="); i >= 0 {
				return tag[i+len("sparkdx-case="):]
			}
		}
	}
	return ""
}
