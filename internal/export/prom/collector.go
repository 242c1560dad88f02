// Package prom exposes sparkdx's analyses as Prometheus metrics: per
// application phase times and ratios, task-duration histograms and stage
// totals by stage kind (compute or write), executor peaks, diagnosis
// findings, and the server's own ingest health. Its consumer (sparkdx
// serve) supplies the applications through Source; the collector keeps
// no state of its own. Every metric is listed in table().
package prom

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
)

// Source lists what the collector reports. Implementations must be safe
// for concurrent use: Prometheus scrapes from its own goroutines.
type Source interface {
	// Apps returns the applications known now: running and finished ones.
	// The collector filters finished ones by Config.Window.
	Apps() []App
	// Health returns the server's own ingest state.
	Health() Health
}

// Health is the ingest state of the server.
type Health struct {
	IngestLag   time.Duration // age of the oldest unread log change
	QueueDepth  int           // logs waiting to be read
	ParseErrors uint64        // unparsable lines since start
	Logs        int           // logs known
	// Omitted counts the finished applications the source left out of
	// Apps itself (outside the window, beyond MaxFinishedApps) before
	// analysing them; they are reported as dropped too.
	Omitted int
}

// Config bounds what the collector exports.
type Config struct {
	// Window keeps finished applications in /metrics for this long after
	// they end (default 1h). Running applications are always reported.
	Window time.Duration
	// MaxExecutorsPerApp bounds per-executor series: the driver and the
	// executors with the largest peak heap are kept (default 100).
	MaxExecutorsPerApp int
	// MaxQueriesPerApp bounds per-query streaming series: the queries
	// that reported a batch last are kept (default 50).
	MaxQueriesPerApp int
	// MaxFinishedApps bounds the finished applications reported: the ones
	// that ended last inside the window are kept (default 500; every
	// running application is reported). A platform that ends thousands of
	// applications an hour would otherwise scrape a million series.
	MaxFinishedApps int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Validate reports a bad setting.
func (c Config) Validate() error {
	if c.Window < 0 {
		return errorf("window %s: must not be negative", c.Window)
	}
	if c.MaxExecutorsPerApp < 0 {
		return errorf("max executors per app %d: must not be negative", c.MaxExecutorsPerApp)
	}
	if c.MaxQueriesPerApp < 0 {
		return errorf("max queries per app %d: must not be negative", c.MaxQueriesPerApp)
	}
	if c.MaxFinishedApps < 0 {
		return errorf("max finished apps %d: must not be negative", c.MaxFinishedApps)
	}
	return nil
}

// Collector is a prometheus.Collector over a Source.
type Collector struct {
	src     Source
	cfg     Config
	metrics []metric
	descs   map[string]*prometheus.Desc
}

// NewCollector returns a collector over src. Zero Config fields take their
// defaults; a bad Config is an error.
func NewCollector(src Source, cfg Config) (*Collector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Window == 0 {
		cfg.Window = time.Hour
	}
	if cfg.MaxExecutorsPerApp == 0 {
		cfg.MaxExecutorsPerApp = 100
	}
	if cfg.MaxQueriesPerApp == 0 {
		cfg.MaxQueriesPerApp = 50
	}
	if cfg.MaxFinishedApps == 0 {
		cfg.MaxFinishedApps = DefaultMaxFinishedApps
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Collector{src: src, cfg: cfg, metrics: table(), descs: map[string]*prometheus.Desc{}}
	for _, m := range c.metrics {
		c.descs[m.name] = prometheus.NewDesc(m.name, m.help, labelsOf(m), nil)
	}
	return c, nil
}

func labelsOf(m metric) []string {
	app := appLabels[:]
	with := func(extra ...string) []string { return append(append([]string(nil), app...), extra...) }
	switch m.scope {
	case scopeApp:
		if m.name == "spark_app_info" {
			return with("name", "user", "spark_version", "state", "run_source", "run_id", "run_name", "run_task", "trace_id")
		}
		return with()
	case scopePhase, scopePhaseState:
		return with("phase")
	case scopeRemoved:
		return with("cause")
	case scopeExecutorRemoved:
		return with("executor_id", "host", "cause")
	case scopeAllocBound:
		return with("bound")
	case scopeKind, scopeTaskHistogram:
		return with("stage_kind")
	case scopeExecutor:
		return with("executor_id", "host")
	case scopeFindings:
		return with("rule", "severity")
	case scopeStream:
		return with("query_id", "query_name")
	case scopeRunningJob:
		return with("job_id")
	case scopeRunningStage:
		return with("stage_id", "stage_attempt_id")
	case scopeTasks:
		return with("state")
	case scopeJobHistogram:
		return with("status")
	}
	return nil
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.metrics {
		ch <- c.descs[m.name]
	}
}

// serverState is what the server-scope metrics read.
type serverState struct {
	Health
	dropped, reported int
}

// Collect sends the metrics of every application in the window and the
// server's health.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	apps := c.src.Apps()
	cutoff := c.cfg.Now().Add(-c.cfg.Window).UnixMilli()
	st := serverState{Health: c.src.Health()}
	st.dropped = st.Omitted
	kept := apps[:0:0]
	seen := map[[2]string]int{} // app and attempt id → index in kept
	for i := range apps {
		a := &apps[i]
		if a.Result == nil {
			continue
		}
		if !a.Running() && a.Result.EndTime < cutoff {
			st.dropped++
			continue
		}
		// One attempt read from two logs (a copy, a rename) would make
		// duplicate series and fail the scrape: keep the later one.
		key := [2]string{a.Result.AppID, a.Result.AttemptID}
		if j, dup := seen[key]; dup {
			st.dropped++
			if a.Result.EndTime > kept[j].Result.EndTime {
				kept[j] = *a
			}
			continue
		}
		seen[key] = len(kept)
		kept = append(kept, *a)
	}
	kept, st.dropped = lastFinished(kept, c.cfg.MaxFinishedApps, st.dropped)
	st.reported = len(kept)
	for _, m := range c.metrics {
		d := c.descs[m.name]
		if m.scope == scopeServer {
			ch <- constMetric(d, m.typ, m.server(&st))
			continue
		}
		for i := range kept {
			c.collectApp(ch, m, d, &kept[i])
		}
	}
}

// DefaultMaxFinishedApps is Config.MaxFinishedApps's default.
const DefaultMaxFinishedApps = 500

// lastFinished keeps every running application of apps and the max
// finished ones that ended last, adding those it leaves to dropped.
func lastFinished(apps []App, max, dropped int) ([]App, int) {
	finished := 0
	for i := range apps {
		if !apps[i].Running() {
			finished++
		}
	}
	if finished <= max {
		return apps, dropped
	}
	slices.SortStableFunc(apps, func(a, b App) int {
		if a.Running() != b.Running() {
			if a.Running() {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.Result.EndTime, a.Result.EndTime)
	})
	cut := len(apps) - (finished - max)
	return apps[:cut], dropped + len(apps) - cut
}

// phases maps the analyzer's phases to the phase label values.
var phases = [...]struct {
	p     analyze.Phase
	label string
}{
	{analyze.PhaseResourceWait, "resource_wait"},
	{analyze.PhaseCompute, "compute"},
	{analyze.PhaseOutputWrite, "io_write"},
	{analyze.PhaseDriverOnly, "driver_only"},
}

var kinds = [...]StageKind{KindCompute, KindWrite}

func (c *Collector) collectApp(ch chan<- prometheus.Metric, m metric, d *prometheus.Desc, a *App) {
	id, attempt := a.Result.AppID, a.Result.AttemptID
	send := func(v float64, extra ...string) {
		ch <- constMetric(d, m.typ, v, append([]string{id, attempt}, extra...)...)
	}
	switch m.scope {
	case scopeApp:
		if m.name == "spark_app_info" {
			state := "finished"
			if a.Running() {
				state = "running"
			}
			x := a.Context
			send(m.app(a), a.Name, a.User, a.SparkVersion, state, x.RunSource, x.RunID, x.RunName, x.RunTask, x.TraceID)
			return
		}
		if v := m.app(a); !math.IsNaN(v) { // NaN: the log does not give it
			send(v)
		}
	case scopeTasks:
		t := a.Result.Headline.Tasks
		for _, x := range []struct {
			state string
			n     int
		}{{"succeeded", t.Succeeded}, {"failed", t.Failed}, {"killed", t.Killed}, {"unfinished", t.Unfinished}} {
			send(float64(x.n), x.state)
		}
	case scopePhase:
		for _, p := range phases {
			send(m.phase(a, p.p), p.label)
		}
	case scopeKind:
		ks := sumKinds(a.Result)
		for _, k := range kinds {
			send(m.kind(ks[k]), string(k))
		}
	case scopeTaskHistogram:
		for _, k := range kinds {
			ch <- constHistogram(d, a.TaskDurations[k], id, attempt, string(k))
		}
	case scopeJobHistogram:
		for _, s := range jobStates {
			ch <- constHistogram(d, a.JobDurations[s], id, attempt, s)
		}
	case scopeExecutor:
		for _, e := range topExecutors(a.Result.Executors, c.cfg.MaxExecutorsPerApp) {
			if v := m.exec(e); !math.IsNaN(v) { // NaN: the log does not give it
				send(v, e.ID, e.Host)
			}
		}
	case scopeExecutorRemoved:
		for _, e := range topExecutors(a.Result.Executors, c.cfg.MaxExecutorsPerApp) {
			if removed(e) {
				send(m.exec(e), e.ID, e.Host, removedCause(e))
			}
		}
	case scopeRemoved:
		counts := map[string]int{}
		for i := range a.Result.Executors {
			if e := &a.Result.Executors[i]; removed(e) {
				counts[removedCause(e)]++
			}
		}
		for _, cause := range removedCauses {
			if n := counts[string(cause)]; n > 0 {
				send(float64(n), string(cause))
			}
		}
	case scopePhaseState:
		now := currentPhase(a)
		for _, p := range phaseStates() {
			v := 0.0
			if p == now {
				v = 1
			}
			send(v, p)
		}
	case scopeAllocBound:
		for _, b := range allocBounds(a) {
			send(float64(b.n), b.label)
		}
	case scopeRunningJob:
		if !a.Result.Running {
			return
		}
		for i := range a.Result.Jobs {
			if j := &a.Result.Jobs[i]; j.Status == model.JobRunning && j.SubmissionTime > 0 {
				send(m.job(a, j), strconv.Itoa(j.ID))
			}
		}
	case scopeRunningStage:
		if !a.Result.Running {
			return
		}
		for i := range a.Result.Stages {
			if s := &a.Result.Stages[i]; s.Status == model.StageActive && s.SubmissionTime > 0 {
				send(m.stage(a, s), strconv.Itoa(s.StageID), strconv.Itoa(s.AttemptID))
			}
		}
	case scopeStream:
		for _, q := range a.Result.LatestQueries(c.cfg.MaxQueriesPerApp) {
			send(m.stream(q), q.ID, q.Name)
		}
	case scopeFindings:
		counts := map[[2]string]int{}
		for _, f := range a.Findings {
			counts[[2]string{f.Rule, f.Severity.String()}]++
		}
		for _, r := range diagnose.All {
			for _, s := range []diagnose.Severity{diagnose.Info, diagnose.Warning, diagnose.Critical} {
				if n := counts[[2]string{r.ID, s.String()}]; n > 0 {
					send(float64(n), r.ID, s.String())
				}
			}
		}
	}
}

// constMetric builds a sample; a label value that is not UTF-8 (an app
// name from a damaged log) is repaired rather than failing the scrape.
// constHistogram is h (nil: empty) as one series with labels.
func constHistogram(d *prometheus.Desc, h *Histogram, labels ...string) prometheus.Metric {
	if h == nil {
		h = &Histogram{}
	}
	b := make(map[float64]uint64, len(taskBuckets))
	for i, ub := range taskBuckets {
		b[ub] = h.Buckets[i]
	}
	hm, err := prometheus.NewConstHistogram(d, h.Count, h.Sum, b, validLabels(labels...)...)
	if err != nil {
		return prometheus.NewInvalidMetric(d, err)
	}
	return hm
}

func constMetric(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(d, t, v, validLabels(labels...)...)
	if err != nil {
		return prometheus.NewInvalidMetric(d, err)
	}
	return m
}

func validLabels(vs ...string) []string {
	for i, v := range vs {
		if !utf8.ValidString(v) {
			vs[i] = strings.ToValidUTF8(v, "\uFFFD")
		}
	}
	return vs
}
