package delta

import (
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"
)

func TestOTLPSampleRows(t *testing.T) {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	boolean := &commonpb.KeyValue{Key: "jvm.thread.daemon", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}}
	t0 := time.Date(2026, 11, 21, 23, 59, 59, 123456789, time.UTC)
	now := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	sum := 2.5
	md := &metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("host.name", "node-1"), str("service.name", "sparkdx-agent"),
			str("spark.executor.id", "from-resource")}},
		ScopeMetrics: []*metricpb.ScopeMetrics{{Metrics: []*metricpb.Metric{
			{Name: "jvm.memory.used", Unit: "By", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: []*metricpb.NumberDataPoint{{
				TimeUnixNano: uint64(t0.UnixNano()), Value: &metricpb.NumberDataPoint_AsInt{AsInt: 1 << 30},
				Attributes: []*commonpb.KeyValue{str("spark.app.id", "app-1"), str("spark.executor.id", "driver"),
					str("spark.role", "driver"), str("jvm.memory.pool.name", "old")}}}}}},
			{Name: "jvm.thread.count", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: []*metricpb.NumberDataPoint{{
				Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: 42}, Attributes: []*commonpb.KeyValue{boolean}}}}}},
			{Name: "jvm.gc.duration", Unit: "s", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
				DataPoints: []*metricpb.HistogramDataPoint{{TimeUnixNano: uint64(t0.UnixNano()), Count: 7, Sum: &sum}}}}},
		}}},
	}}}
	rows := OTLPSampleRows(md, now)
	type want struct {
		metric, unit, date, app, exec, role string
		value                               float64
		time                                time.Time
		attrs                               map[string]string
	}
	t0us := t0.Truncate(time.Microsecond)
	wants := []want{
		{"jvm.memory.used", "By", "2026-11-21", "app-1", "driver", "driver", 1 << 30, t0us, map[string]string{"jvm.memory.pool.name": "old"}},
		{"jvm.thread.count", "", "2026-11-22", "", "from-resource", "", 42, now, map[string]string{"jvm.thread.daemon": "true"}},
		{"jvm.gc.duration.count", "1", "2026-11-21", "", "from-resource", "", 7, t0us, map[string]string{}},
		{"jvm.gc.duration.sum", "s", "2026-11-21", "", "from-resource", "", 2.5, t0us, map[string]string{}},
	}
	if len(rows) != len(wants) {
		t.Fatalf("got %d rows, want %d: %+v", len(rows), len(wants), rows)
	}
	for i, w := range wants {
		r := rows[i]
		t.Run(w.metric, func(t *testing.T) {
			if r.Metric != w.metric || r.Unit != w.unit || r.Date != w.date || r.Value != w.value || !r.Time.Equal(w.time) {
				t.Errorf("got %s %s %s %v at %s, want %s %s %s %v at %s", r.Metric, r.Unit, r.Date, r.Value, r.Time,
					w.metric, w.unit, w.date, w.value, w.time)
			}
			if r.AppID != w.app || r.ExecutorID != w.exec || r.Role != w.role || r.Host != "node-1" || r.Service != "sparkdx-agent" {
				t.Errorf("got app %q executor %q role %q host %q service %q, want %q %q %q node-1 sparkdx-agent",
					r.AppID, r.ExecutorID, r.Role, r.Host, r.Service, w.app, w.exec, w.role)
			}
			if len(r.Attributes) != len(w.attrs) {
				t.Errorf("got attributes %v, want %v", r.Attributes, w.attrs)
			}
			for k, v := range w.attrs {
				if r.Attributes[k] != v {
					t.Errorf("attribute %s: got %q, want %q", k, r.Attributes[k], v)
				}
			}
		})
	}
}

// FuzzOTLPSampleRows: any body that decodes gives rows whose partition is
// their own day and whose attributes map is never nil (a required column).
func FuzzOTLPSampleRows(f *testing.F) {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	sum := 1.5
	seed, err := proto.Marshal(&metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("host.name", "n1")}},
		ScopeMetrics: []*metricpb.ScopeMetrics{{Metrics: []*metricpb.Metric{
			{Name: "jvm.memory.used", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: []*metricpb.NumberDataPoint{{
				TimeUnixNano: 1.7e18, Value: &metricpb.NumberDataPoint_AsInt{AsInt: 5},
				Attributes: []*commonpb.KeyValue{str("spark.app.id", "app-1"), str("jvm.memory.pool.name", "old")}}}}}},
			{Name: "jvm.gc.duration", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
				DataPoints: []*metricpb.HistogramDataPoint{{Count: 3, Sum: &sum}}}}},
		}}}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte{})
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		var md metricpb.MetricsData
		if proto.Unmarshal(body, &md) != nil {
			return
		}
		for _, r := range OTLPSampleRows(&md, now) {
			if r.Date != SampleDate(r.Time) || r.Attributes == nil || r.Time.Location() != time.UTC {
				t.Fatalf("row %+v: date %q, want %q and attributes", r, r.Date, SampleDate(r.Time))
			}
		}
	})
}
