package diagnose

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var streamingRate = Threshold{Metric: "process rate ÷ input rate over the later half of a query's micro-batches (≥ 5)",
	Warning: 0.9, Critical: 0.5,
	Gate: "the recent batches' median ≥ 1.25 × the early batches' (the batches grow: not one slow batch, not a " +
		"query whose batches all take about its trigger interval); cost: the last batch ran longer than the early " +
		"batches' median (the extra delay new data now waits) by ≥ 5 % of the app and ≥ 1 s, else info; ≥ 25 % for critical",
	Source: "Spark's streaming statistics page (input rate vs process rate); a query that keeps up processes faster " +
		"than data arrives, so any sustained ratio below 1 is a backlog that grows; 0.9 leaves room for noise"}

// StreamingBehind reports Structured Streaming queries whose micro-batches
// fall behind their input.
var StreamingBehind = &Rule{
	ID:     "streaming-behind",
	Title:  "Streaming query falling behind its input",
	Recipe: "troubleshoot/streaming-behind.md",
	Doc: "A Structured Streaming query processed rows more slowly than they arrived over its recent micro-batches: " +
		"batches run back to back, each takes the data that came in during the one before, and the delay grows.",
	Thresholds: []Threshold{streamingRate},
	Run:        runStreamingBehind,
}

// batchGrowth is how much longer (median) the recent batches must run than
// the early ones for a low process rate to be a growing backlog.
const batchGrowth = 1.25

func runStreamingBehind(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Streaming {
		q := &p.Result.Streaming[i]
		ratio, ok := q.RateRatio()
		if !ok {
			continue
		}
		// Batches that do not grow are not a backlog building up: a query
		// whose batches take about its trigger interval, or whose last
		// batch alone was slow (a GC pause), keeps its delay.
		if float64(q.RecentBatchMs) < batchGrowth*float64(q.EarlyBatchMs) {
			continue
		}
		sev := streamingRate.Level(ratio)
		if sev == None {
			continue
		}
		cost := p.cost(q.LastBatchMs-q.EarlyBatchMs, 0,
			"wall: how much longer the last micro-batch ran than the early ones (the extra delay new data now waits)")
		out = append(out, Finding{Severity: gate(sev, cost), Cost: cost,
			Detail: fmt.Sprintf("Query %s: over its last %d micro-batches rows arrived at %.0f/s and were processed at %.0f/s "+
				"(%.0f%%); batches grew from %s (median of the early ones) to %s.",
				queryRef(q), q.Recent, q.InputRowsPerSecond, q.ProcessedRowsPerSecond, 100*ratio,
				fmtMs(q.EarlyBatchMs), fmtMs(q.LastBatchMs)),
			Evidence: map[string]any{"queryId": q.ID, "runId": q.RunID, "queryName": q.Name, "batches": q.Batches,
				"recentBatches": q.Recent, "inputRowsPerSecond": round(q.InputRowsPerSecond),
				"processedRowsPerSecond": round(q.ProcessedRowsPerSecond), "ratio": round(ratio),
				"earlyBatchMs": q.EarlyBatchMs, "recentBatchMs": q.RecentBatchMs, "lastBatchMs": q.LastBatchMs, "lastBatchId": q.Last.BatchID,
				"stateRows": q.Last.StateRows, "stateMemoryBytes": q.Last.StateMemoryBytes}})
	}
	return out
}

// queryRef names a streaming query as a person set it (queryName), or by
// its id.
func queryRef(q *analyze.StreamingQuery) string {
	if q.Name != "" {
		return fmt.Sprintf("%q (%s)", q.Name, q.ID)
	}
	return q.ID
}
