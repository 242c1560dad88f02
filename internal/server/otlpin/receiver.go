// Package otlpin is serve's OTLP metrics receiver (POST /v1/metrics): it
// takes the OTLP/HTTP protobuf pushes of sparkdx agents (and Spark's own
// sinks as package sinks maps them), keeps the points that name a Spark
// application within serve's bounds, drops another shard's, and stores
// them as samples (package store) and in a metrics sink (the Delta samples
// table). It owns the bounds and the counters of what they drop.
package otlpin

import (
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/shard"
)

// Config configures a Receiver.
type Config struct {
	Store *store.Store
	// Metrics also receives every request stored (the Delta samples
	// table); none when nil.
	Metrics MetricsSink
	// Apps says which applications serve indexed.
	Apps Apps
	// Shard is this instance's shard of the logs (--shard); points of
	// other shards' applications are dropped.
	Shard  shard.Spec
	Logger *slog.Logger
	Now    func() time.Time
}

// MetricsSink receives the OTLP metrics requests agents push.
type MetricsSink interface {
	AddMetrics(ctx context.Context, req *metricpb.MetricsData) error
}

// Apps is what the receiver asks of the applications serve indexed.
type Apps interface {
	// Version changes whenever the index does.
	Version() uint64
	// IDs are the indexed applications' ids.
	IDs() []string
}

// Receiver receives OTLP metrics.
type Receiver struct {
	cfg    Config
	limits *limits
	// otherShard counts the agents' points dropped as other shards'.
	otherShard atomic.Int64
}

// New returns a Receiver.
func New(cfg Config) *Receiver {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Receiver{cfg: cfg, limits: newLimits()}
}

// maxOTLPBody bounds one OTLP request.
const maxOTLPBody = 16 << 20

// ServeHTTP receives OTLP/HTTP protobuf metrics from sparkdx agents and
// stores the points that name a Spark application (spark.app.id).
func (s *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "want Content-Type application/x-protobuf", http.StatusUnsupportedMediaType)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, r.Body, maxOTLPBody)
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, "bad gzip body: "+err.Error(), http.StatusBadRequest)
			return
		}
		body = io.LimitReader(zr, maxOTLPBody)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	// MetricsData has ExportMetricsServiceRequest's wire format (field 1:
	// repeated ResourceMetrics) without pulling in the gRPC service code.
	var req metricpb.MetricsData
	if err := proto.Unmarshal(raw, &req); err != nil {
		http.Error(w, "bad OTLP metrics request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := s.IngestMetrics(r.Context(), &req); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	// An empty ExportMetricsServiceResponse: full success.
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// IngestMetrics keeps the points of req that name a Spark application —
// an agent's OTLP push, or Spark's own sinks as package sinks maps them —
// as samples and in the metrics sink (Delta), within serve's bounds; it
// drops from req, in place, the points another shard owns or past the
// bounds. An error means the store refused them.
func (s *Receiver) IngestMetrics(ctx context.Context, req *metricpb.MetricsData) error {
	s.otherShard.Add(int64(s.keepOwned(req)))
	s.limit(req)
	if err := s.cfg.Store.AddSamples(Samples(req)); err != nil {
		return err
	}
	if s.cfg.Metrics != nil {
		// The store has the samples: a sink that fails (Delta) is logged,
		// not a reason for the agent to send them again.
		if err := s.cfg.Metrics.AddMetrics(ctx, req); err != nil {
			s.cfg.Logger.Warn("otlp metrics sink", "err", err)
		}
	}
	return nil
}

// qualifiers are the point attributes kept in a sample's metric name
// (jvm.memory.used{heap}); other attributes (pool, collector) are summed
// over.
var qualifiers = []string{"jvm.memory.type", "sparkdx.process.kind", "cpu.mode", "disk.io.direction", "spark.memory.kind",
	"jvm.buffer.pool.name", "spark.gc.kind"}

// Series the driver-degradation rule needs, kept beside the summed ones:
// the old generation's pool and major (full) collections.
const (
	MetricOldUsed  = "jvm.memory.used{old}"
	MetricOldLimit = "jvm.memory.limit{old}"
	// MetricCodeCache is the JIT's code cache in use, its pools summed
	// (JMX's CodeHeap pools, or "Code Cache" without segmentation): it is
	// part of non_heap, and a full one stops compilation. Only Spark's
	// JvmSource sends it; hsperfdata has no code cache gauge.
	MetricCodeCache  = "jvm.memory.used{code_cache}"
	MetricMajorGCs   = "jvm.gc.count{major}"
	MetricGCDuration = "jvm.gc.duration"
	MetricClasses    = "jvm.class.count"
)

// derived names the extra series a point also counts in, if any.
func derived(metric string, at map[string]string) string {
	switch metric {
	case "jvm.memory.used", "jvm.memory.limit":
		if oldPool(at["jvm.memory.pool.name"]) {
			return metric + "{old}"
		}
		if metric == "jvm.memory.used" && codeCachePool(at["jvm.memory.pool.name"]) {
			return MetricCodeCache
		}
	case "jvm.gc.count":
		// OpenTelemetry's jvm.gc.action; the sparkdx agent sets it from
		// the collector's kind in hsperfdata.
		if at["jvm.gc.action"] == "end of major GC" {
			return MetricMajorGCs
		}
	}
	return ""
}

// oldPool says whether a heap pool is the old generation, as JMX ("G1 Old
// Gen", "PS Old Gen", "Tenured Gen") or hsperfdata ("old") names it.
func oldPool(name string) bool {
	n := strings.ToLower(name)
	return n == "old" || strings.Contains(n, "old gen") || strings.Contains(n, "tenured")
}

// codeCachePool says whether a non-heap pool is the JIT's code cache, as
// JMX names it: "CodeHeap 'non-nmethods'", "CodeHeap 'profiled nmethods'",
// "CodeHeap 'non-profiled nmethods'", or "Code Cache" when the cache is
// not segmented.
func codeCachePool(name string) bool {
	return strings.HasPrefix(name, "CodeHeap '") || name == "Code Cache"
}

// Samples turns an OTLP request into samples, one per application,
// executor, metric and time, summing points that differ only in
// attributes not kept.
func Samples(req *metricpb.MetricsData) []store.Sample {
	sums := map[store.Sample]float64{}
	for _, rm := range req.GetResourceMetrics() {
		res := attrs(rm.GetResource().GetAttributes())
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				for _, p := range numberPoints(m) {
					at := attrs(p.GetAttributes())
					get := func(k string) string {
						if v, ok := at[k]; ok {
							return v
						}
						return res[k]
					}
					app := get("spark.app.id")
					if app == "" {
						continue
					}
					name := sampleName(m.GetName(), p.GetAttributes())
					v := p.GetAsDouble()
					if _, ok := p.GetValue().(*metricpb.NumberDataPoint_AsInt); ok {
						v = float64(p.GetAsInt())
					}
					k := store.Sample{AppID: app, ExecutorID: get("spark.executor.id"), Metric: name,
						Time: int64(p.GetTimeUnixNano() / 1e6)}
					sums[k] += v
					if d := derived(m.GetName(), at); d != "" {
						k.Metric = d
						sums[k] += v
					}
				}
			}
		}
	}
	out := make([]store.Sample, 0, len(sums))
	for k, v := range sums {
		k.Value = v
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Metric != b.Metric {
			return a.Metric < b.Metric
		}
		if a.ExecutorID != b.ExecutorID {
			return a.ExecutorID < b.ExecutorID
		}
		return a.Time < b.Time
	})
	return out
}

func numberPoints(m *metricpb.Metric) []*metricpb.NumberDataPoint {
	switch d := m.GetData().(type) {
	case *metricpb.Metric_Gauge:
		return d.Gauge.GetDataPoints()
	case *metricpb.Metric_Sum:
		return d.Sum.GetDataPoints()
	}
	return nil
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		if sv, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValue); ok {
			m[kv.GetKey()] = sv.StringValue
		}
	}
	return m
}
