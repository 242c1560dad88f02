package delta

import (
	"strconv"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// sampleColumn is the samples column of an attribute that has one (the sparkdx
// agent sets them), else nil.
func sampleColumn(r *SampleRow, key string) *string {
	switch key {
	case "host.name":
		return &r.Host
	case "service.name":
		return &r.Service
	case "spark.app.id":
		return &r.AppID
	case "spark.executor.id":
		return &r.ExecutorID
	case "spark.role":
		return &r.Role
	}
	return nil
}

// OTLPSampleRows turns an OTLP metrics request (agents push it to serve;
// the collector's exporter hands over the same data) into rows of the
// samples table: one row per gauge or sum point; histograms and summaries give a
// "<name>.count" and a "<name>.sum" row. Points without a timestamp are
// stamped now.
func OTLPSampleRows(md *metricpb.MetricsData, now time.Time) []SampleRow {
	var rows []SampleRow
	for _, rm := range md.GetResourceMetrics() {
		res := rm.GetResource().GetAttributes()
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				rows = appendSampleRows(rows, res, m, now)
			}
		}
	}
	return rows
}

func appendSampleRows(rows []SampleRow, res []*commonpb.KeyValue, m *metricpb.Metric, now time.Time) []SampleRow {
	name, unit := m.GetName(), m.GetUnit()
	add := func(attrs []*commonpb.KeyValue, ts uint64, name, unit string, v float64) {
		rows = append(rows, sampleRow(res, attrs, ts, now, name, unit, v))
	}
	number := func(pts []*metricpb.NumberDataPoint) {
		for _, p := range pts {
			v := p.GetAsDouble()
			if x, ok := p.GetValue().(*metricpb.NumberDataPoint_AsInt); ok {
				v = float64(x.AsInt)
			}
			add(p.GetAttributes(), p.GetTimeUnixNano(), name, unit, v)
		}
	}
	countSum := func(attrs []*commonpb.KeyValue, ts, count uint64, sum float64, hasSum bool) {
		add(attrs, ts, name+".count", "1", float64(count))
		if hasSum {
			add(attrs, ts, name+".sum", unit, sum)
		}
	}
	switch d := m.GetData().(type) {
	case *metricpb.Metric_Gauge:
		number(d.Gauge.GetDataPoints())
	case *metricpb.Metric_Sum:
		number(d.Sum.GetDataPoints())
	case *metricpb.Metric_Histogram:
		for _, p := range d.Histogram.GetDataPoints() {
			countSum(p.GetAttributes(), p.GetTimeUnixNano(), p.GetCount(), p.GetSum(), p.Sum != nil)
		}
	case *metricpb.Metric_ExponentialHistogram:
		for _, p := range d.ExponentialHistogram.GetDataPoints() {
			countSum(p.GetAttributes(), p.GetTimeUnixNano(), p.GetCount(), p.GetSum(), p.Sum != nil)
		}
	case *metricpb.Metric_Summary:
		for _, p := range d.Summary.GetDataPoints() {
			countSum(p.GetAttributes(), p.GetTimeUnixNano(), p.GetCount(), p.GetSum(), true)
		}
	}
	return rows
}

func sampleRow(res, attrs []*commonpb.KeyValue, ts uint64, now time.Time, name, unit string, v float64) SampleRow {
	t := now
	if ts != 0 {
		t = time.Unix(0, int64(ts))
	}
	t = t.UTC().Truncate(time.Microsecond)
	r := SampleRow{Date: SampleDate(t), Time: t, Metric: name, Value: v, Unit: unit, Attributes: map[string]string{}}
	for _, kvs := range [][]*commonpb.KeyValue{res, attrs} { // point attributes win
		for _, kv := range kvs {
			s := anyString(kv.GetValue())
			if c := sampleColumn(&r, kv.GetKey()); c != nil {
				*c = s
			} else {
				r.Attributes[kv.GetKey()] = s
			}
		}
	}
	return r
}

// anyString renders an attribute value as text, as pdata's AsString does
// for the scalar types (others are rare in metrics and kept empty).
func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	}
	return ""
}
