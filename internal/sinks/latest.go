package sinks

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// latest keeps each series' last value for /metrics, bounded: at most
// maxApps applications, maxSeries series each; a series not sent for
// staleAfter (its executor gone) is forgotten.
type latest struct {
	mu         sync.Mutex
	apps       map[string]map[seriesKey]value
	maxApps    int
	maxSeries  int
	staleAfter time.Duration
	swept      time.Time
}

type value struct {
	v      float64
	timeMs int64
	seen   time.Time // when it arrived: staleness goes by serve's clock, not the sender's
}

func newLatest(maxApps, maxSeries int, staleAfter time.Duration) *latest {
	return &latest{apps: map[string]map[seriesKey]value{}, maxApps: maxApps, maxSeries: maxSeries, staleAfter: staleAfter}
}

// record keeps the batch's points, newest per series, and drops from the
// batch the points of new series past the bounds; it returns how many.
func (l *latest) record(b *batch, now time.Time) (refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > l.staleAfter/4 {
		l.sweep(now)
	}
	for k, v := range b.points {
		series := l.apps[k.app]
		if series == nil {
			if len(l.apps) >= l.maxApps {
				refused++
				delete(b.points, k)
				continue
			}
			series = map[seriesKey]value{}
			l.apps[k.app] = series
		}
		old, ok := series[k.seriesKey]
		if !ok && len(series) >= l.maxSeries {
			refused++
			delete(b.points, k)
			continue
		}
		if !ok || k.timeMs >= old.timeMs {
			series[k.seriesKey] = value{v: v, timeMs: k.timeMs, seen: now}
		}
	}
	return refused
}

func (l *latest) sweep(now time.Time) {
	l.swept = now
	for app, series := range l.apps {
		for k, v := range series {
			if now.Sub(v.seen) > l.staleAfter {
				delete(series, k)
			}
		}
		if len(series) == 0 {
			delete(l.apps, app)
		}
	}
}

// collector renders the table as Prometheus metrics with the agent's
// labels (app_id, executor_id, role) and each family's own.
type collector struct {
	l     *latest
	now   func() time.Time
	descs [numFamilies]*prometheus.Desc
	stats *stats
}

func newCollector(l *latest, st *stats, now func() time.Time) *collector {
	c := &collector{l: l, now: now, stats: st}
	for i := range families {
		f := &families[i]
		labels := append([]string{"app_id", "executor_id", "role"}, f.labels...)
		c.descs[i] = prometheus.NewDesc(f.prom, f.desc, labels, prometheus.Labels{"source": "spark_sink"})
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
	c.stats.describe(ch)
}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.stats.collect(ch)
	now := c.now()
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	for _, series := range c.l.apps {
		for k, v := range series {
			if now.Sub(v.seen) > c.l.staleAfter {
				continue
			}
			f := &families[k.fam]
			typ := prometheus.GaugeValue
			if f.counter {
				typ = prometheus.CounterValue
			}
			vals := append(make([]string, 0, 3+len(f.labels)), k.app, k.exec, role(k.exec))
			vals = append(vals, k.attrs[:len(f.labels)]...)
			if m, err := prometheus.NewConstMetric(c.descs[k.fam], typ, v.v, vals...); err == nil {
				ch <- m
			}
		}
	}
}
