package otlpin

import (
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// keepOwned drops from an OTLP metrics request the points of
// applications another serve instance owns (--shard), so that when a
// Collector sends every instance all of the agents' telemetry each keeps
// its share, and the shared Delta samples table gets each point once.
// An application is this instance's when its index has it or, not yet
// indexed, when its id hashes to this shard; points naming none go to
// shard 0. It returns how many points it dropped.
func (s *Receiver) keepOwned(req *metricpb.MetricsData) int {
	sp := s.cfg.Shard
	if !sp.Enabled() {
		return 0
	}
	var local map[string]bool // built on the first point that names an app
	mine := map[string]bool{}
	owned := func(app string) bool {
		if app == "" {
			return sp.Index == 0
		}
		if v, ok := mine[app]; ok {
			return v
		}
		if local == nil {
			local = map[string]bool{}
			for _, id := range s.cfg.Apps.IDs() {
				local[id] = true
			}
		}
		v := local[app] || sp.OwnerOfApp(app) == sp.Index
		mine[app] = v
		return v
	}
	return filterPoints(req, func(app, _ string) bool { return owned(app) })
}

// keepPoints keeps the points whose attributes keep accepts, in place.
func keepPoints[P interface{ GetAttributes() []*commonpb.KeyValue }](pts []P, keep func([]*commonpb.KeyValue) bool) []P {
	out := pts[:0]
	for _, p := range pts {
		if keep(p.GetAttributes()) {
			out = append(out, p)
		}
	}
	return out
}

// stringAttr is the string value of key among attrs, or "".
func stringAttr(attrs []*commonpb.KeyValue, key string) string {
	for _, kv := range attrs {
		if kv.GetKey() == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}
