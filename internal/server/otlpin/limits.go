package otlpin

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// Bounds of what the agents' OTLP pushes may add (docs/security.md): eight
// 15 MB posts of made-up series for made-up applications once grew the
// store from 1 MB to 196 MB, kept for the retention, and the Delta
// samples table with it.
const (
	// MaxPendingApps bounds the applications serve does not know (yet)
	// whose points it keeps: an agent may push before serve has read the
	// log's first lines.
	MaxPendingApps = 64
	// pendingFor is how long an unknown application holds its place.
	pendingFor = time.Hour
	// MaxSeriesPerApp bounds one application's series (executor ×
	// metric): an agent sends about 60 per JVM.
	MaxSeriesPerApp = 20_000
)

// limits applies the bounds to OTLP requests and counts what they
// drop, by reason.
type limits struct {
	mu      sync.Mutex
	series  map[string]map[string]struct{} // by application ("" for points naming none)
	pending map[string]time.Time           // unknown applications admitted, and when
	swept   time.Time
	known   map[string]bool // applications indexed, as of knownAt
	knownAt uint64

	unknownApp, seriesLimit atomic.Int64
}

func newLimits() *limits {
	return &limits{series: map[string]map[string]struct{}{}, pending: map[string]time.Time{}}
}

// limit drops from req, in place, the points past the bounds.
func (s *Receiver) limit(req *metricpb.MetricsData) {
	l := s.limits
	now := s.cfg.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if v := s.cfg.Apps.Version(); l.known == nil || v != l.knownAt {
		l.known, l.knownAt = map[string]bool{}, v
		for _, id := range s.cfg.Apps.IDs() {
			l.known[id] = true
		}
	}
	if now.Sub(l.swept) > time.Minute {
		l.sweep(now)
	}
	filterPoints(req, func(app, series string) bool {
		if app != "" && !l.known[app] {
			if _, ok := l.pending[app]; !ok {
				if len(l.pending) >= MaxPendingApps {
					l.unknownApp.Add(1)
					return false
				}
				l.pending[app] = now
			}
		}
		set := l.series[app]
		if set == nil {
			set = map[string]struct{}{}
			l.series[app] = set
		}
		if _, ok := set[series]; !ok {
			if len(set) >= MaxSeriesPerApp {
				l.seriesLimit.Add(1)
				return false
			}
			set[series] = struct{}{}
		}
		return true
	})
}

// sweep frees the places of pending applications now indexed or older
// than pendingFor, and forgets the series of applications neither
// indexed nor pending (gone from the fleet).
func (l *limits) sweep(now time.Time) {
	l.swept = now
	for app, at := range l.pending {
		if l.known[app] || now.Sub(at) > pendingFor {
			delete(l.pending, app)
		}
	}
	for app := range l.series {
		if _, pending := l.pending[app]; app != "" && !l.known[app] && !pending {
			delete(l.series, app)
		}
	}
}

// pendingApps is how many unknown applications hold a place.
func (l *limits) pendingApps() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending)
}

// filterPoints keeps, in place, the points of req that keep accepts,
// given each point's application (its attribute, else its resource's)
// and series (executor and the sample's metric name, as Samples names
// them); it returns how many it dropped.
func filterPoints(req *metricpb.MetricsData, keep func(app, series string) bool) int {
	dropped := 0
	for _, rm := range req.GetResourceMetrics() {
		res := rm.GetResource().GetAttributes()
		resApp, resExec := stringAttr(res, "spark.app.id"), stringAttr(res, "spark.executor.id")
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				name := m.GetName()
				ok := func(attrs []*commonpb.KeyValue) bool {
					app, exec := stringAttr(attrs, "spark.app.id"), stringAttr(attrs, "spark.executor.id")
					if app == "" {
						app = resApp
					}
					if exec == "" {
						exec = resExec
					}
					if keep(app, exec+"\x00"+sampleName(name, attrs)) {
						return true
					}
					dropped++
					return false
				}
				switch d := m.GetData().(type) {
				case *metricpb.Metric_Gauge:
					d.Gauge.DataPoints = keepPoints(d.Gauge.DataPoints, ok)
				case *metricpb.Metric_Sum:
					d.Sum.DataPoints = keepPoints(d.Sum.DataPoints, ok)
				case *metricpb.Metric_Histogram:
					d.Histogram.DataPoints = keepPoints(d.Histogram.DataPoints, ok)
				case *metricpb.Metric_ExponentialHistogram:
					d.ExponentialHistogram.DataPoints = keepPoints(d.ExponentialHistogram.DataPoints, ok)
				case *metricpb.Metric_Summary:
					d.Summary.DataPoints = keepPoints(d.Summary.DataPoints, ok)
				}
			}
		}
	}
	return dropped
}

// sampleName is a point's sample metric name: the metric's, with the
// qualifiers among its attributes (jvm.memory.used{heap}).
func sampleName(metric string, attrs []*commonpb.KeyValue) string {
	var qs []string
	for _, q := range qualifiers {
		if v := stringAttr(attrs, q); v != "" {
			qs = append(qs, v)
		}
	}
	if len(qs) == 0 {
		return metric
	}
	return metric + "{" + strings.Join(qs, ",") + "}"
}
