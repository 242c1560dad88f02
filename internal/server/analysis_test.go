package server

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/otlpin"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// driverSeries is a driver the agent sampled every minute: cumulative GC
// seconds, major collections so far, old generation used and its limit.
type driverSeries struct {
	gcSeconds, majors, oldUsed []float64
	oldLimit                   float64
}

// degrading is a driver spending a third of its time in GC with an old
// generation 97 % full after full collections.
func degrading(n int) driverSeries {
	var s driverSeries
	s.oldLimit = 4 << 30
	for i := range n {
		s.gcSeconds = append(s.gcSeconds, 20*float64(i))
		s.majors = append(s.majors, float64(i))
		s.oldUsed = append(s.oldUsed, 0.97*s.oldLimit)
	}
	return s
}

// pushDriver posts the series as the sparkdx agent does: per-pool memory
// and per-collector GC points with OpenTelemetry's attributes.
func pushDriver(t *testing.T, url, app string, t0 time.Time, s driverSeries) {
	t.Helper()
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	base := []*commonpb.KeyValue{str("spark.app.id", app), str("spark.executor.id", "driver"), str("spark.role", "driver")}
	with := func(kv ...*commonpb.KeyValue) []*commonpb.KeyValue {
		return append(append([]*commonpb.KeyValue{}, base...), kv...)
	}
	dbl := func(v float64) *metricpb.NumberDataPoint_AsDouble {
		return &metricpb.NumberDataPoint_AsDouble{AsDouble: v}
	}
	integer := func(v float64) *metricpb.NumberDataPoint_AsInt {
		return &metricpb.NumberDataPoint_AsInt{AsInt: int64(v)}
	}
	var used, limit, gcTime, gcCount []*metricpb.NumberDataPoint
	for i := range s.gcSeconds {
		ts := uint64(t0.Add(time.Duration(i) * time.Minute).UnixNano())
		used = append(used,
			&metricpb.NumberDataPoint{TimeUnixNano: ts, Value: integer(s.oldUsed[i]), Attributes: with(str("jvm.memory.type", "heap"), str("jvm.memory.pool.name", "old"))},
			&metricpb.NumberDataPoint{TimeUnixNano: ts, Value: integer(50 << 20), Attributes: with(str("jvm.memory.type", "heap"), str("jvm.memory.pool.name", "eden"))})
		limit = append(limit, &metricpb.NumberDataPoint{TimeUnixNano: ts, Value: integer(s.oldLimit),
			Attributes: with(str("jvm.memory.type", "heap"), str("jvm.memory.pool.name", "old"))})
		gcTime = append(gcTime,
			&metricpb.NumberDataPoint{TimeUnixNano: ts, Value: dbl(s.gcSeconds[i] / 2), Attributes: with(str("jvm.gc.name", "G1 young"), str("jvm.gc.action", "end of minor GC"))},
			&metricpb.NumberDataPoint{TimeUnixNano: ts, Value: dbl(s.gcSeconds[i] / 2), Attributes: with(str("jvm.gc.name", "G1 full"), str("jvm.gc.action", "end of major GC"))})
		gcCount = append(gcCount,
			&metricpb.NumberDataPoint{TimeUnixNano: ts, Value: integer(10 * float64(i)), Attributes: with(str("jvm.gc.name", "G1 young"), str("jvm.gc.action", "end of minor GC"))},
			&metricpb.NumberDataPoint{TimeUnixNano: ts, Value: integer(s.majors[i]), Attributes: with(str("jvm.gc.name", "G1 full"), str("jvm.gc.action", "end of major GC"))})
	}
	sum := func(name string, pts []*metricpb.NumberDataPoint) *metricpb.Metric {
		return &metricpb.Metric{Name: name, Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: pts}}}
	}
	req := &metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{ScopeMetrics: []*metricpb.ScopeMetrics{{
		Metrics: []*metricpb.Metric{sum("jvm.memory.used", used), sum("jvm.memory.limit", limit),
			sum("jvm.gc.duration", gcTime), sum("jvm.gc.count", gcCount)}}}}}}
	sparktest.PostOTLPMetrics(t, url, req)
}

type reportFindings struct {
	Findings []fleet.Finding `json:"findings"`
}

func findingOf(t *testing.T, ts *testServer, app, rule string) (fleet.Finding, bool) {
	t.Helper()
	var r reportFindings
	ts.getJSON(t, "/api/sparkdx/v1/apps/"+app+"/report", &r)
	for _, f := range r.Findings {
		if f.Rule == rule {
			return f, true
		}
	}
	return fleet.Finding{}, false
}

// A driver the agent saw degrading gives driver-degradation in the report
// of its application, running and then finished, and the fleet view shows
// it as the running application's worst finding; a healthy driver and an
// application without samples give none.
func TestDriverDegradationFromAgentSamples(t *testing.T) {
	logs := t.TempDir()
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	// Drop the last line (SparkListenerApplicationEnd): the app runs.
	cut := bytes.LastIndexByte(bytes.TrimRight(src, "\n"), '\n') + 1
	running := filepath.Join(logs, "local-1430917381534.inprogress")
	if err := os.WriteFile(running, src[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	healthy := sparktest.Path(t, "spark-events", "local-1422981759269")
	b, err := os.ReadFile(healthy)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logs, "local-1422981759269"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", logs)
	ts.waitIdle(t)

	if _, ok := findingOf(t, ts, tailApp, "driver-degradation"); ok {
		t.Fatal("driver-degradation without agent samples")
	}
	t0 := time.Now().Add(-time.Hour)
	pushDriver(t, ts.url, tailApp, t0, degrading(12))
	f, ok := findingOf(t, ts, tailApp, "driver-degradation")
	if !ok {
		t.Fatal("running app: no driver-degradation finding after a degrading driver's samples")
	}
	var ev map[string]float64
	if err := json.Unmarshal(f.Evidence, &ev); err != nil {
		t.Fatal(err)
	}
	if f.Severity != "critical" || ev["oldGenAfterGcRatio"] < 0.95 || ev["gcRatio"] < 0.3 || ev["samples"] != 12 {
		t.Errorf("got %s with evidence %v, want critical, old gen ≥ 0.95, GC ratio ≈ 0.33, 12 samples", f.Severity, ev)
	}
	waitFor(t, "the running app's worst finding in the fleet list", func() (bool, string) {
		a, ok := appSummary(t, ts, tailApp)
		if !ok || a.Worst == nil {
			return false, "no worst finding"
		}
		return a.Status == "running" && a.Worst.Rule == "driver-degradation", a.Status + " " + a.Worst.Rule
	})

	waitFor(t, "the fleet page to show it", func() (bool, string) {
		_, page := ts.get(t, "/")
		return bytes.Contains(page, []byte("critical</span> Driver degrading")), "not on the page"
	})

	// A driver with little GC and a roomy old generation: nothing.
	var fine driverSeries
	fine.oldLimit = 4 << 30
	for i := range 12 {
		fine.gcSeconds = append(fine.gcSeconds, float64(i))
		fine.majors = append(fine.majors, float64(i/4))
		fine.oldUsed = append(fine.oldUsed, 0.3*fine.oldLimit)
	}
	pushDriver(t, ts.url, "local-1422981759269", t0, fine)
	if f, ok := findingOf(t, ts, "local-1422981759269", "driver-degradation"); ok {
		t.Errorf("healthy driver: got %s driver-degradation, want none", f.Severity)
	}

	// The application ends: the stored report keeps the finding.
	if err := os.WriteFile(filepath.Join(logs, "local-1430917381534"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(running); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the app to complete", func() (bool, string) {
		a, ok := appSummary(t, ts, tailApp)
		return ok && a.Status == "completed", a.Status
	})
	if _, ok := findingOf(t, ts, tailApp, "driver-degradation"); !ok {
		t.Error("finished app: the stored report lost driver-degradation")
	}
}

func TestAgentData(t *testing.T) {
	const limit = 1000
	sample := func(metric string, minute int, v float64) store.Sample {
		return store.Sample{AppID: "a", ExecutorID: "driver", Metric: metric, Time: int64(minute) * 60000, Value: v}
	}
	tests := []struct {
		name     string
		samples  []store.Sample
		wantNil  bool
		wantFull []bool
		wantGCMs []int64
		wantOld  []int64
		// wantClasses, when set, are the samples' class counts.
		wantClasses []int64
	}{
		{name: "none", wantNil: true},
		{name: "one time", samples: []store.Sample{sample(otlpin.MetricGCDuration, 0, 1)}, wantNil: true},
		{name: "other metrics only", samples: []store.Sample{sample("jvm.thread.count", 0, 1), sample("jvm.thread.count", 1, 2)}, wantNil: true},
		{name: "full GC when the major count grows",
			samples: []store.Sample{
				sample(otlpin.MetricGCDuration, 0, 1), sample(otlpin.MetricMajorGCs, 0, 3), sample(otlpin.MetricOldUsed, 0, 500), sample(otlpin.MetricOldLimit, 0, limit),
				sample(otlpin.MetricGCDuration, 1, 1.5), sample(otlpin.MetricMajorGCs, 1, 3), sample(otlpin.MetricOldUsed, 1, 600), sample(otlpin.MetricOldLimit, 1, limit),
				sample(otlpin.MetricGCDuration, 2, 4), sample(otlpin.MetricMajorGCs, 2, 5), sample(otlpin.MetricOldUsed, 2, 900), sample(otlpin.MetricOldLimit, 2, limit),
			},
			wantFull: []bool{false, false, true}, wantGCMs: []int64{1000, 1500, 4000}, wantOld: []int64{500, 600, 900}},
		{name: "a missing metric keeps its value",
			samples: []store.Sample{
				sample(otlpin.MetricGCDuration, 5, 2), sample(otlpin.MetricOldUsed, 5, 700),
				sample(otlpin.MetricGCDuration, 6, 3),
			},
			wantFull: []bool{false, false}, wantGCMs: []int64{2000, 3000}, wantOld: []int64{700, 700}},
		{name: "classes held",
			samples: []store.Sample{
				sample(otlpin.MetricClasses, 0, 15000), sample(otlpin.MetricGCDuration, 0, 1),
				sample(otlpin.MetricGCDuration, 1, 2),
				sample(otlpin.MetricClasses, 2, 21000),
			},
			wantFull: []bool{false, false, false}, wantGCMs: []int64{1000, 2000, 2000}, wantOld: []int64{0, 0, 0},
			wantClasses: []int64{15000, 15000, 21000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AgentData(tc.samples)
			if tc.wantNil {
				if got != nil {
					t.Errorf("got %+v, want nil", got)
				}
				return
			}
			if got == nil || len(got.Driver) != len(tc.wantFull) {
				t.Fatalf("got %+v, want %d samples", got, len(tc.wantFull))
			}
			for i, d := range got.Driver {
				if d.FullGC != tc.wantFull[i] || d.GCTimeMs != tc.wantGCMs[i] || d.OldGenUsedBytes != tc.wantOld[i] {
					t.Errorf("sample %d: got full %v gc %dms old %d, want %v %dms %d", i, d.FullGC, d.GCTimeMs, d.OldGenUsedBytes,
						tc.wantFull[i], tc.wantGCMs[i], tc.wantOld[i])
				}
				if tc.wantClasses != nil && d.Classes != tc.wantClasses[i] {
					t.Errorf("sample %d: got %d classes, want %d", i, d.Classes, tc.wantClasses[i])
				}
				if i > 0 && !d.Time.After(got.Driver[i-1].Time) {
					t.Errorf("sample %d at %s not after %s", i, d.Time, got.Driver[i-1].Time)
				}
			}
		})
	}
}

// BenchmarkAnalyze is what serve adds per finished log with exports on,
// and per live fleet summary: the analysis with the driver's samples (a
// day of 10 s samples read from the store) on the big real log.
func BenchmarkAnalyze(b *testing.B) {
	ctx := context.Background()
	path := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a, stats, err := replay.Log(ctx, logs[0], replay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var xs []store.Sample
	for i := range 8640 {
		ms := a.StartTime + int64(i)*10000
		for _, m := range []struct {
			name string
			v    float64
		}{{otlpin.MetricGCDuration, float64(i) / 10}, {otlpin.MetricMajorGCs, float64(i / 100)}, {otlpin.MetricOldUsed, 0.97 * (4 << 30)}, {otlpin.MetricOldLimit, 4 << 30}} {
			xs = append(xs, store.Sample{AppID: a.AppID, ExecutorID: "driver", Metric: m.name, Time: ms, Value: m.v})
		}
	}
	if err := st.AddSamples(xs); err != nil {
		b.Fatal(err)
	}
	in := ingest.Input{Attempt: a, Log: reportv1.Log{Path: path, Bytes: stats.Bytes, Events: stats.Events}, Now: time.Now()}
	found := false
	for _, f := range Analyze(st, in).Report.Findings {
		found = found || f.Rule == "driver-degradation"
	}
	if !found {
		b.Fatal("no driver-degradation finding: the samples were not read")
	}
	b.SetBytes(stats.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		Analyze(st, in)
	}
}
