package analyze

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// StreamingQuery is one Structured Streaming query run's micro-batches, in
// the terms of Spark's streaming statistics page: input rate is rows per
// second of time between batch starts (the rate data arrived at), process
// rate rows per second of batch duration. A query that keeps up processes
// faster than data arrives; one whose process rate stays below its input
// rate runs its batches back to back, each longer than the one before.
type StreamingQuery struct {
	ID, RunID, Name    string
	StartTime, EndTime int64 // EndTime NoTime while it runs
	Exception          string
	Batches            int // progress reports: micro-batches that ran

	// Recent are the batches the rates below are over: the later half of
	// the run, at least MinRecentBatches when there are that many, the
	// first batch excluded (it has no batch before it to start from).
	Recent                 int
	RecentRows             int64
	InputRowsPerSecond     float64 // Σ rows ÷ Σ time since the previous batch's start, over Recent
	ProcessedRowsPerSecond float64 // Σ rows ÷ Σ batch duration, over Recent
	// EarlyBatchMs is the median duration of the batches before Recent,
	// RecentBatchMs of Recent, LastBatchMs the last batch's: a query that
	// falls behind has recent batches longer than its early ones, and
	// last minus early is how much longer new data now waits.
	EarlyBatchMs  int64
	RecentBatchMs int64
	LastBatchMs   int64
	Last          model.StreamingProgress // the last batch as Spark reported it
}

// RateRatio is process rate ÷ input rate over the recent batches; ok is
// false when there are too few batches to judge or no input arrived.
func (q *StreamingQuery) RateRatio() (ratio float64, ok bool) {
	if q.Recent < MinRecentBatches || q.RecentRows == 0 || q.InputRowsPerSecond <= 0 {
		return 0, false
	}
	return q.ProcessedRowsPerSecond / q.InputRowsPerSecond, true
}

// MinRecentBatches is the fewest batches the rates are measured over when
// the run has them: fewer say nothing about a trend (nor are judged on).
const MinRecentBatches = 5

// streaming summarises each streaming query run of the attempt.
func streaming(a *model.Attempt) []StreamingQuery {
	out := make([]StreamingQuery, 0, len(a.Streaming))
	for _, q := range a.Streaming {
		s := StreamingQuery{ID: q.ID, RunID: q.RunID, Name: q.Name, StartTime: q.StartTime, EndTime: q.EndTime,
			Exception: q.Exception, Batches: len(q.Progress)}
		if n := len(q.Progress); n > 0 {
			s.Last = q.Progress[n-1]
			s.LastBatchMs = s.Last.BatchDurationMs
		}
		if n := len(q.Progress); n >= 2 {
			recent := min(max(n/2, MinRecentBatches), n-1)
			from := n - recent
			var rows, arrived, busy int64
			recentMs := make([]int64, 0, recent)
			for i := from; i < n; i++ {
				p := &q.Progress[i]
				rows += p.NumInputRows
				arrived += max(p.Time-q.Progress[i-1].Time, 0)
				busy += max(p.BatchDurationMs, 0)
				recentMs = append(recentMs, p.BatchDurationMs)
			}
			s.RecentBatchMs = median(recentMs)
			s.Recent, s.RecentRows = recent, rows
			s.InputRowsPerSecond = perSecond(rows, arrived)
			s.ProcessedRowsPerSecond = perSecond(rows, busy)
			early := make([]int64, 0, from)
			for _, p := range q.Progress[:from] {
				early = append(early, p.BatchDurationMs)
			}
			if len(early) > 0 {
				s.EarlyBatchMs = median(early)
			}
		}
		out = append(out, s)
	}
	return out
}

// perSecond is n per ms milliseconds, per second; 0 when ms is 0.
func perSecond(n, ms int64) float64 {
	if ms <= 0 {
		return 0
	}
	return float64(n) * 1000 / float64(ms)
}

// LatestQueries keeps each streaming query's latest run (a restarted
// query keeps its id and gets a new run id) and, of those, the n that
// reported a batch last (all when n is 0): what exporters report, one
// series per query however often it restarts.
func (r *Result) LatestQueries(n int) []*StreamingQuery {
	qs := r.Streaming
	byID := map[string]*StreamingQuery{}
	for i := range qs {
		q := &qs[i]
		if q.Batches == 0 {
			continue
		}
		if old := byID[q.ID]; old == nil || q.Last.Time >= old.Last.Time {
			byID[q.ID] = q
		}
	}
	out := make([]*StreamingQuery, 0, len(byID))
	for _, q := range byID {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Last.Time != out[j].Last.Time {
			return out[i].Last.Time > out[j].Last.Time
		}
		return out[i].ID < out[j].ID
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
