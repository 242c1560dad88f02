package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sparkdx/sparkdx/internal/export/prom"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// promSource is the prom.Source of the server: every running application
// and the finished ones inside the collector's window, analysed once per
// version of their log.
type promSource struct {
	s      *Server
	window time.Duration
	max    int // finished applications reported

	mu      sync.Mutex
	apps    map[string]promApp // by log key
	omitted int                // finished applications inWindow left out
}

type promApp struct {
	version string
	app     prom.App
}

// Apps implements prom.Source.
func (p *promSource) Apps() []prom.App {
	now := p.s.cfg.Now().UnixMilli()
	var out []prom.App
	live := map[string]bool{}
	for _, r := range p.inWindow(now) {
		live[r.Key] = true
		version := fmt.Sprint(r.Done, r.Events, r.ModTime)
		if !r.Done {
			// A running application's phases run to now (a wait for
			// executors writes no event): analysed again every 15 s.
			version += fmt.Sprint(" ", now/15_000)
		}
		p.mu.Lock()
		c, ok := p.apps[r.Key]
		p.mu.Unlock()
		if !ok || c.version != version {
			app, err := p.analyse(r)
			if err != nil {
				continue
			}
			c = promApp{version: version, app: app}
			p.mu.Lock()
			p.apps[r.Key] = c
			p.mu.Unlock()
		}
		out = append(out, c.app)
	}
	p.mu.Lock()
	for k := range p.apps {
		if !live[k] {
			delete(p.apps, k)
		}
	}
	p.mu.Unlock()
	return out
}

// inWindow is the logs /metrics reports: every running one, and the
// finished ones that ended inside the window, the last max of them — so
// that only those are analysed (a restart over a directory of old logs
// copied today analyses none of them).
func (p *promSource) inWindow(now int64) []store.LogRecord {
	var running, finished []store.LogRecord
	unnamed := 0
	recs, total := p.s.cfg.Ingest.Select(func(r *store.LogRecord) bool {
		switch {
		case r.AppID == "":
			unnamed++
			return false
		case !r.Done:
			return true
		}
		return recordEnd(*r) >= now-p.window.Milliseconds()
	})
	for _, r := range recs {
		if r.Done {
			finished = append(finished, r)
		} else {
			running = append(running, r)
		}
	}
	byKey := func(a, b store.LogRecord) int { return cmp.Compare(a.Key, b.Key) }
	slices.SortFunc(running, byKey)
	slices.SortFunc(finished, byKey)
	if len(finished) > p.max {
		slices.SortFunc(finished, func(a, b store.LogRecord) int { return cmp.Compare(recordEnd(b), recordEnd(a)) })
		finished = finished[:p.max]
	}
	p.mu.Lock()
	p.omitted = total - len(running) - len(finished) - unnamed
	p.mu.Unlock()
	return append(running, finished...)
}

// recordEnd is when a finished log's application ended: its end event,
// else its last event (as the analysis says), else the file's time.
func recordEnd(r store.LogRecord) int64 {
	switch {
	case r.EndTime > 0:
		return r.EndTime
	case r.LastEvent > 0:
		return r.LastEvent
	}
	return r.LastUpdated
}

func (p *promSource) analyse(r store.LogRecord) (prom.App, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, release, err := p.s.cfg.Ingest.Attempt(ctx, r.Key)
	if err != nil {
		return prom.App{}, err
	}
	defer release()
	an := Analyze(p.s.cfg.Store, ingest.Input{Attempt: a, InProgress: !r.Done && !a.Completed,
		ModTime: time.Unix(0, r.ModTime), Now: p.s.cfg.Now()})
	app := prom.NewApp(a, an.Result, an.Report.Findings)
	if run := r.Run; run != nil {
		app.Context.RunSource, app.Context.RunID, app.Context.RunName, app.Context.RunTask = run.Source, run.ID, run.Name, run.Task
	}
	return app, nil
}

func (p *promSource) omittedNow() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.omitted
}

// Health implements prom.Source.
func (p *promSource) Health() prom.Health {
	st := p.s.cfg.Ingest.Status()
	return prom.Health{IngestLag: time.Duration(st.LagMs) * time.Millisecond, QueueDepth: st.QueueDepth,
		ParseErrors: uint64(st.BadLines), Logs: st.Logs, Omitted: p.omittedNow()}
}

// ingestCollector exports the ingest counters prom.Collector does not.
type ingestCollector struct {
	in    *ingest.Ingester
	descs map[string]*prometheus.Desc
}

var ingestMetrics = []struct {
	name, help string
	typ        prometheus.ValueType
	value      func(ingest.Status) float64
}{
	{"sparkdx_serve_logs_running", "Event logs being tailed.", prometheus.GaugeValue, func(s ingest.Status) float64 { return float64(s.Running) }},
	{"sparkdx_serve_logs_other_shard", "Event logs the last scan left to other serve instances (--shard), unread.", prometheus.GaugeValue, func(s ingest.Status) float64 { return float64(s.OtherShard) }},
	{"sparkdx_serve_logs_done", "Event logs analysed and stored.", prometheus.GaugeValue, func(s ingest.Status) float64 { return float64(s.Done) }},
	{"sparkdx_serve_logs_impossible_values", "Values the event logs known recorded that cannot be (a task ending before it started, a sum past 2^63), clamped; /api/sparkdx/v1/logs names the logs.", prometheus.GaugeValue, func(s ingest.Status) float64 { return float64(s.Impossible) }},
	{"sparkdx_serve_logs_expired", "Event logs the last scan found past the applications' retention (--app-max-age, --max-finished-apps), not kept.", prometheus.GaugeValue, func(s ingest.Status) float64 { return float64(s.Expired) }},
	{"sparkdx_serve_ingest_bytes_total", "Decoded event-log bytes read.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Bytes) }},
	{"sparkdx_serve_ingest_events_total", "Events applied.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Events) }},
	{"sparkdx_serve_ingest_errors_total", "Logs that could not be read.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Errors) }},
	{"sparkdx_serve_ingest_deferred_total", "Times a changed log waited for a full queue.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Deferred) }},
	{"sparkdx_serve_ingest_replaced_total", "Running logs found cut or replaced under their name while tailed, and read again.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Replaced) }},
	{"sparkdx_serve_ingest_slow_lane_total", "Finished logs whose replay outlasted 30 s and went on in the slow lane, so that the others do not wait.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.SlowLane) }},
	{"sparkdx_serve_ingest_resumed_total", "Running logs continued from their stored replay state at startup.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Resumed) }},
	{"sparkdx_serve_ingest_resume_saves_total", "Replay states of running logs stored.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Saves) }},
	{"sparkdx_serve_ingest_resume_save_bytes_total", "Bytes of the replay states stored.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.SaveBytes) }},
	{"sparkdx_serve_scans_total", "Listings of the event-log directories.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.Scans) }},
	{"sparkdx_serve_scan_errors_total", "Listings that failed.", prometheus.CounterValue, func(s ingest.Status) float64 { return float64(s.ScanErrors) }},
}

func newIngestCollector(in *ingest.Ingester) *ingestCollector {
	c := &ingestCollector{in: in, descs: map[string]*prometheus.Desc{}}
	for _, m := range ingestMetrics {
		c.descs[m.name] = prometheus.NewDesc(m.name, m.help, nil, nil)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *ingestCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *ingestCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.in.Status()
	for _, m := range ingestMetrics {
		ch <- prometheus.MustNewConstMetric(c.descs[m.name], m.typ, m.value(st))
	}
}

// metricsHandler serves /metrics: the applications (package prom) and
// ingest's own counters.
func (s *Server) metricsHandler() (http.Handler, error) {
	src := &promSource{s: s, window: s.cfg.MetricsWindow, max: s.cfg.MetricsMaxFinished, apps: map[string]promApp{}}
	if src.window <= 0 {
		src.window = time.Hour
	}
	if src.max <= 0 {
		src.max = prom.DefaultMaxFinishedApps
	}
	c, err := prom.NewCollector(src, prom.Config{Window: src.window, MaxFinishedApps: src.max, Now: s.cfg.Now})
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	if err := errors.Join(reg.Register(c), reg.Register(newIngestCollector(s.cfg.Ingest)), reg.Register(newJobCollector(s))); err != nil {
		return nil, err
	}
	if err := s.registerWriteMetrics(reg); err != nil {
		return nil, err
	}
	for _, c := range s.cfg.Collectors {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, c := range s.otlp.Collectors() {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}), nil
}

// registerWriteMetrics counts the failed writes of the store and of the
// Delta tables, and the agent samples dropped while the samples table
// failed.
func (s *Server) registerWriteMetrics(reg *prometheus.Registry) error {
	deltaFailures := func(i int) func() float64 {
		return func() float64 {
			if s.cfg.Exports == nil {
				return 0
			}
			a, b, c := s.cfg.Exports.WriteFailures()
			return float64([3]int64{a, b, c}[i])
		}
	}
	return errors.Join(
		reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sparkdx_serve_store_write_errors_total",
			Help: "Writes to serve's store (--data) that failed (a full disk); /healthz is degraded while the last one failed."},
			func() float64 { return float64(s.cfg.Store.Writes().Failures()) })),
		reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sparkdx_serve_delta_write_errors_total",
			Help:        "Delta (--delta) writes that failed, by table; /healthz is degraded while a table's last write failed.",
			ConstLabels: prometheus.Labels{"table": "apps"}}, deltaFailures(0))),
		reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sparkdx_serve_delta_write_errors_total",
			Help:        "Delta (--delta) writes that failed, by table; /healthz is degraded while a table's last write failed.",
			ConstLabels: prometheus.Labels{"table": "samples"}}, deltaFailures(1))),
		reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sparkdx_serve_delta_samples_dropped_total",
			Help: "Agent samples dropped while the Delta samples table failed: past 10 batches waiting, the oldest go."},
			deltaFailures(2))))
}
