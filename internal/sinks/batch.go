package sinks

import (
	"cmp"
	"slices"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
)

// seriesKey names one series of one process.
type seriesKey struct {
	app, exec string
	fam       int
	attrs     [2]string
}

// pointKey is a series at one time: a report's points share their time,
// so that serve sums a report's pools into jvm.memory.used{heap}.
type pointKey struct {
	seriesKey
	timeMs int64
}

// batch gathers the mapped points of one report (or a few) before they
// go to serve as one OTLP request; a point sent twice keeps its last value.
type batch struct {
	sink   string // graphite or statsd: the resource's sparkdx.sink
	max    int
	timeMs int64 // the first point's time
	points map[pointKey]float64
}

func newBatch(sink string, max int) *batch {
	return &batch{sink: sink, max: max, points: map[pointKey]float64{}}
}

// add keeps a mapped point; false when the batch is full (flush it first).
func (b *batch) add(p Point, m mapped) bool {
	k := pointKey{seriesKey{app: p.App, exec: p.Executor, fam: m.fam, attrs: m.attrs}, p.TimeMs}
	if _, ok := b.points[k]; !ok && len(b.points) >= b.max {
		return false
	}
	if len(b.points) == 0 {
		b.timeMs = p.TimeMs
	}
	b.points[k] = m.value
	return true
}

func (b *batch) len() int { return len(b.points) }

// split moves the points of the processes of which which says so into a
// batch of their own.
func (b *batch) split(which func(app, exec string) bool) *batch {
	out := newBatch(b.sink, b.max)
	for k, v := range b.points {
		if which(k.app, k.exec) {
			out.points[k] = v
			delete(b.points, k)
		}
	}
	return out
}

func (b *batch) reset() { clear(b.points) }

// metricsData is the batch as OTLP: a resource per process (spark.app.id,
// spark.executor.id, spark.role, as the agent sets them), a metric per
// family, a point per series and time, in a stable order.
func (b *batch) metricsData() *metricpb.MetricsData {
	keys := make([]pointKey, 0, len(b.points))
	for k := range b.points {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y pointKey) int {
		return cmp.Or(cmp.Compare(x.app, y.app), cmp.Compare(x.exec, y.exec), cmp.Compare(x.fam, y.fam),
			cmp.Compare(x.attrs[0], y.attrs[0]), cmp.Compare(x.attrs[1], y.attrs[1]), cmp.Compare(x.timeMs, y.timeMs))
	})
	md := &metricpb.MetricsData{}
	var rm *metricpb.ResourceMetrics
	var m *metricpb.Metric
	for i, k := range keys {
		if i == 0 || k.app != keys[i-1].app || k.exec != keys[i-1].exec {
			rm = &metricpb.ResourceMetrics{Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
				str("service.name", "spark"), str("sparkdx.sink", b.sink), str("spark.app.id", k.app),
				str("spark.executor.id", k.exec), str("spark.role", role(k.exec))}},
				ScopeMetrics: []*metricpb.ScopeMetrics{{Scope: &commonpb.InstrumentationScope{Name: "sparkdx/sinks"}}}}
			md.ResourceMetrics = append(md.ResourceMetrics, rm)
			m = nil
		}
		f := &families[k.fam]
		if m == nil || m.Name != f.otlp {
			m = newMetric(f)
			sm := rm.ScopeMetrics[0]
			sm.Metrics = append(sm.Metrics, m)
		}
		pt := &metricpb.NumberDataPoint{TimeUnixNano: uint64(k.timeMs) * 1e6,
			Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: b.points[k]}}
		for j, a := range f.attrs {
			pt.Attributes = append(pt.Attributes, str(a, k.attrs[j]))
		}
		if s, ok := m.Data.(*metricpb.Metric_Sum); ok {
			s.Sum.DataPoints = append(s.Sum.DataPoints, pt)
		} else {
			g := m.Data.(*metricpb.Metric_Gauge)
			g.Gauge.DataPoints = append(g.Gauge.DataPoints, pt)
		}
	}
	return md
}

func newMetric(f *family) *metricpb.Metric {
	m := &metricpb.Metric{Name: f.otlp, Unit: f.unit, Description: f.desc}
	if f.counter {
		m.Data = &metricpb.Metric_Sum{Sum: &metricpb.Sum{IsMonotonic: true,
			AggregationTemporality: metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE}}
	} else {
		m.Data = &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{}}
	}
	return m
}

// role is spark.role of an executor id.
func role(exec string) string {
	if exec == "driver" {
		return "driver"
	}
	return "executor"
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}
