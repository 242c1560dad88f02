package otlpin

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Collectors are the receiver's series for /metrics: the points its
// bounds dropped, by reason, the unknown applications holding a place
// and, with shards, the points left to another instance.
func (s *Receiver) Collectors() []prometheus.Collector {
	cs := []prometheus.Collector{dropped("unknown_app", &s.limits.unknownApp), dropped("series_limit", &s.limits.seriesLimit),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sparkdx_serve_otlp_pending_apps",
			Help: "Applications serve has not indexed whose agents' OTLP points it keeps (at most 64 at once, each for an hour)."},
			func() float64 { return float64(s.limits.pendingApps()) })}
	if s.cfg.Shard.Enabled() {
		cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sparkdx_serve_otlp_points_other_shard_total",
			Help: "Agents' OTLP metric points dropped as another serve instance's (--shard): its owner keeps them."},
			func() float64 { return float64(s.otherShard.Load()) }))
	}
	return cs
}

// dropped counts the agents' OTLP points dropped for one reason:
// unknown_app (past the pending applications' bound) or series_limit (an
// application's series past MaxSeriesPerApp).
func dropped(reason string, n *atomic.Int64) prometheus.Collector {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sparkdx_serve_otlp_points_dropped_total",
		Help:        "Agents' OTLP metric points dropped by serve's bounds, by reason (docs/security.md).",
		ConstLabels: prometheus.Labels{"reason": reason}}, func() float64 { return float64(n.Load()) })
}
