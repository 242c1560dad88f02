package server

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// maxJobsReported bounds the jobs spark_job_regression_ratio reports (the
// most recently run): one series per job.
const maxJobsReported = 1000

// jobCache keeps each finished log's regression sample, read once from its
// stored report per version of the log.
type jobCache struct {
	mu      sync.Mutex
	samples map[string]cachedSample // by log key
}

type cachedSample struct {
	modTime int64
	sample  regress.Sample
	logKey  string
}

// JobRun and Job are regress's: the page of a job (package web) shows
// the same values the API gives.
type (
	JobRun = regress.Run
	Job    = regress.Job
)

// jobKeyOf is the recurring job a log's application is a run of.
func jobKeyOf(r store.LogRecord) string { return fleet.JobKey(r.Run, r.AppName, r.User) }

// jobSamples returns every finished log's sample, reading the reports not
// read since their log changed.
func (s *Server) jobSamples(ctx context.Context) []cachedSample {
	recs, _ := s.cfg.Ingest.Select(func(r *store.LogRecord) bool { return r.Done && r.AppID != "" && r.Error == "" })
	c := &s.jobs
	c.mu.Lock()
	if c.samples == nil {
		c.samples = map[string]cachedSample{}
	}
	c.mu.Unlock()
	out := make([]cachedSample, 0, len(recs))
	keep := map[string]bool{}
	for _, r := range recs {
		keep[r.Key] = true
		c.mu.Lock()
		cs, ok := c.samples[r.Key]
		c.mu.Unlock()
		if !ok || cs.modTime != r.ModTime {
			b, err := s.cfg.Ingest.Report(ctx, r.Key)
			var rep reportv1.Report
			if err != nil || json.Unmarshal(b, &rep) != nil {
				continue // a report not written yet, or unreadable: no sample
			}
			cs = cachedSample{modTime: r.ModTime, logKey: r.Key, sample: regress.SampleOf(jobKeyOf(r), &rep)}
			if rc := rep.ResourceCost; rc != nil {
				cs.sample.Cost = *(&reportCost{Total: rc.Total, InstanceType: rc.InstanceType}).at(s.cfg.Prices)
			}
			c.mu.Lock()
			c.samples[r.Key] = cs
			c.mu.Unlock()
		}
		out = append(out, cs)
	}
	c.mu.Lock()
	for k := range c.samples {
		if !keep[k] {
			delete(c.samples, k)
		}
	}
	c.mu.Unlock()
	return out
}

// jobList groups the finished logs' samples by job and judges each run
// against the runs before it (the baseline as it stood when the run came).
func (s *Server) jobList(ctx context.Context, cfg regress.Config) []Job {
	return jobsOf(s.jobSamples(ctx), cfg)
}

func jobsOf(samples []cachedSample, cfg regress.Config) []Job {
	byKey := map[string][]cachedSample{}
	for _, cs := range samples {
		byKey[cs.sample.Key] = append(byKey[cs.sample.Key], cs)
	}
	out := make([]Job, 0, len(byKey))
	for key, css := range byKey {
		slices.SortFunc(css, func(a, b cachedSample) int { return cmp.Compare(a.sample.StartTime, b.sample.StartTime) })
		samples, logs := make([]regress.Sample, len(css)), make([]string, len(css))
		for i, cs := range css {
			samples[i], logs[i] = cs.sample, cs.logKey
		}
		out = append(out, regress.History(key, samples, logs, cfg))
	}
	slices.SortFunc(out, func(a, b Job) int { return cmp.Compare(b.Latest.StartTime, a.Latest.StartTime) })
	return out
}

// apiJobs lists the recurring jobs, each with its latest run's verdict.
func (s *Server) apiJobs(w http.ResponseWriter, r *http.Request) {
	jobs := s.jobList(r.Context(), s.regressConfig())
	for i := range jobs {
		jobs[i].Runs = nil
	}
	writeJSON(w, http.StatusOK, jobs)
}

// apiJob is one job's history, with the causes of its newest regressed
// runs.
func (s *Server) apiJob(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("job")
	j, ok := s.job(r.Context(), key)
	if !ok {
		jsonError(w, http.StatusNotFound, "no job "+key)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

// job is one job's history with the causes of its newest regressed runs
// (explainJob): what its API and its page show.
func (s *Server) job(ctx context.Context, key string) (Job, bool) {
	samples := s.jobSamples(ctx)
	versions := make(map[string]int64, len(samples))
	for _, cs := range samples {
		versions[cs.logKey] = cs.modTime
	}
	for _, j := range jobsOf(samples, s.regressConfig()) {
		if j.Key != key {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		s.explainJob(ctx, &j, versions)
		return j, true
	}
	return Job{}, false
}

// regressConfig is the configuration serve judges runs with.
func (s *Server) regressConfig() regress.Config {
	if s.cfg.Regression.Runs > 0 {
		return s.cfg.Regression
	}
	return regress.DefaultConfig()
}

// jobCollector exports spark_job_regression_ratio: each recurring job's
// latest run against its baseline's median wall time.
type jobCollector struct {
	s    *Server
	desc *prometheus.Desc
}

func newJobCollector(s *Server) jobCollector {
	return jobCollector{s: s, desc: prometheus.NewDesc("spark_job_regression_ratio",
		"Wall time of a recurring job's latest run ÷ the median of its previous successful runs (docs/regressions.md); only jobs with a baseline.",
		[]string{"job", "app_id", "regressed"}, nil)}
}

func (c jobCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c jobCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := 0
	for _, j := range c.s.jobList(ctx, c.s.regressConfig()) {
		v := j.Latest.Verdict
		if v == nil {
			continue
		}
		if n++; n > maxJobsReported {
			return
		}
		regressed := "false"
		if v.Regressed {
			regressed = "true"
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v.Ratio, j.Key, j.Latest.AppID, regressed)
	}
}
