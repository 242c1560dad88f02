package otlpin

import (
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// FuzzOTLPSamples: any request body either fails to decode or yields
// samples that all name an application; nothing panics.
func FuzzOTLPSamples(f *testing.F) {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	seed, _ := proto.Marshal(&metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		ScopeMetrics: []*metricpb.ScopeMetrics{{Metrics: []*metricpb.Metric{
			{Name: "jvm.memory.used", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: []*metricpb.NumberDataPoint{{
				TimeUnixNano: 1e18, Value: &metricpb.NumberDataPoint_AsInt{AsInt: 5},
				Attributes: []*commonpb.KeyValue{str("spark.app.id", "app-1"), str("jvm.memory.type", "heap")}}}}}},
			{Name: "process.cpu.time", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: []*metricpb.NumberDataPoint{{
				Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: 1.5}, Attributes: []*commonpb.KeyValue{str("spark.app.id", "app-1")}}}}}},
		}}}}}})
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, body []byte) {
		var req metricpb.MetricsData
		if proto.Unmarshal(body, &req) != nil {
			return
		}
		for _, s := range Samples(&req) {
			if s.AppID == "" {
				t.Fatalf("sample without an application: %+v", s)
			}
		}
	})
}
