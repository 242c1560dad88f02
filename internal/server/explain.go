package server

import (
	"container/list"
	"context"
	"sync"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
)

// Explaining a regressed run replays and analyses two event logs (the run
// and its baseline's median run): seconds for a large log. So a job's
// answer explains at most ExplainRuns regressed runs, the newest first,
// and each explanation is kept until either log or the baseline changes.
const (
	// DefaultExplainRuns is how many regressed runs one answer of a job
	// explains when Config.ExplainRuns is zero (docs/regressions.md).
	DefaultExplainRuns = 10
	// maxExplanations bounds the explanations kept, the least recently
	// used dropped first: a few causes each, kilobytes in all.
	maxExplanations = 1000
)

// logVersion names one version of a log: a changed log is a new version.
type logVersion struct {
	key     string
	modTime int64
}

// explainKey names one explanation: the run, the baseline's median run it
// was compared with, and the baseline whose medians judge input growth.
type explainKey struct {
	run, base logVersion
	baseline  regress.Baseline
}

// explainCache keeps explanations, at most max, the least recently used
// dropped first.
type explainCache struct {
	mu      sync.Mutex
	max     int
	entries map[explainKey]*list.Element // of *explanation
	order   list.List                    // most recently used first
}

type explanation struct {
	key    explainKey
	causes []regress.Cause
}

func (c *explainCache) get(k explainKey) ([]regress.Cause, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*explanation).causes, true
}

func (c *explainCache) put(k explainKey, causes []regress.Cause) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[explainKey]*list.Element{}
	}
	if e, ok := c.entries[k]; ok {
		e.Value.(*explanation).causes = causes
		c.order.MoveToFront(e)
		return
	}
	c.entries[k] = c.order.PushFront(&explanation{key: k, causes: causes})
	for c.order.Len() > max(c.max, 1) {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*explanation).key)
	}
}

func (c *explainCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// explainRuns is how many regressed runs one answer of a job explains.
func (s *Server) explainRuns() int {
	if s.cfg.ExplainRuns > 0 {
		return s.cfg.ExplainRuns
	}
	return DefaultExplainRuns
}

// explainJob fills the causes of j's regressed runs, the newest
// explainRuns of them; the older ones are marked unexplained. versions
// gives each run's log version.
func (s *Server) explainJob(ctx context.Context, j *Job, versions map[string]int64) {
	j.ExplainLimit = s.explainRuns()
	n := 0
	for i := len(j.Runs) - 1; i >= 0; i-- {
		run := &j.Runs[i]
		if run.Verdict == nil || !run.Verdict.Regressed {
			continue
		}
		if n >= j.ExplainLimit {
			run.Unexplained = true
			continue
		}
		n++
		s.explainRun(ctx, j, i, versions)
	}
	j.Latest = j.Runs[len(j.Runs)-1]
}

// explainRun fills the causes of a regressed run: it and the baseline's
// median run replayed and compared, once per version of the pair.
func (s *Server) explainRun(ctx context.Context, j *Job, i int, versions map[string]int64) {
	run := &j.Runs[i]
	var baseLog string
	for _, r := range j.Runs[:i] {
		if r.AppID == run.Baseline.MedianRun {
			baseLog = r.Log
		}
	}
	k := explainKey{run: logVersion{run.Log, versions[run.Log]}, base: logVersion{baseLog, versions[baseLog]}, baseline: *run.Baseline}
	if causes, ok := s.explained.get(k); ok {
		run.Causes = causes
		return
	}
	base, err := s.diffInput(ctx, baseLog)
	if err != nil {
		return // not cached: the next answer tries again
	}
	after, err := s.diffInput(ctx, run.Log)
	if err != nil {
		return
	}
	run.Causes = regress.Explain(*run.Baseline, base, after)
	s.explained.put(k, run.Causes)
}

// diffInput replays and analyses one log: what an explanation costs.
func (s *Server) diffInput(ctx context.Context, key string) (diff.Input, error) {
	s.explainAnalyses.Add(1)
	a, release, err := s.cfg.Ingest.Attempt(ctx, key)
	if err != nil {
		return diff.Input{}, err
	}
	defer release()
	an := Analyze(s.cfg.Store, ingest.Input{Attempt: a, Now: s.cfg.Now()})
	return diff.Input{Report: an.Report, Result: an.Result}, nil
}
