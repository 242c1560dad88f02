package reportv1

import "github.com/sparkdx/sparkdx/internal/analyze"

// StreamingQuery is one Structured Streaming query run
// (analyze.StreamingQuery): its rates over the later half of its batches
// (null with too few batches to judge), its batch durations early, recent
// and last, and its state after the last batch.
type StreamingQuery struct {
	ID                     string   `json:"id"`
	RunID                  string   `json:"runId"`
	Name                   string   `json:"name"`
	StartTime              int64    `json:"startTime"`
	EndTime                *int64   `json:"endTime"` // null while it runs
	Batches                int      `json:"batches"`
	InputRowsPerSecond     *float64 `json:"inputRowsPerSecond"`
	ProcessedRowsPerSecond *float64 `json:"processedRowsPerSecond"`
	EarlyBatchMs           int64    `json:"earlyBatchMs"`
	RecentBatchMs          int64    `json:"recentBatchMs"`
	LastBatchMs            int64    `json:"lastBatchMs"`
	StateRows              int64    `json:"stateRows"`
	StateMemoryBytes       int64    `json:"stateMemoryBytes"`
	Exception              string   `json:"exception"`
}

// Memory is the executors' memory against what was asked
// (analyze.MemorySizing); suggestedHeapBytes is null when the heap should
// stay as it is (keep says why).
type Memory struct {
	Executors          int     `json:"executors"`
	HeapBytes          int64   `json:"heapBytes"`
	PeakHeapBytes      int64   `json:"peakHeapBytes"`
	OffHeapBytes       int64   `json:"offHeapBytes"`
	PeakOffHeapBytes   int64   `json:"peakOffHeapBytes"`
	Headroom           float64 `json:"headroom"`
	SuggestedHeapBytes *int64  `json:"suggestedHeapBytes"`
	Keep               string  `json:"keep"`
	ExecutorHours      float64 `json:"executorHours"`
	SavedGiBHours      float64 `json:"savedGibHours"`
}

func streamingQueries(qs []analyze.StreamingQuery) []StreamingQuery {
	out := make([]StreamingQuery, 0, len(qs))
	for i := range qs {
		q := &qs[i]
		s := StreamingQuery{ID: q.ID, RunID: q.RunID, Name: q.Name, StartTime: q.StartTime, EndTime: optTime(q.EndTime),
			Batches: q.Batches, EarlyBatchMs: q.EarlyBatchMs, RecentBatchMs: q.RecentBatchMs, LastBatchMs: q.LastBatchMs,
			StateRows: q.Last.StateRows, StateMemoryBytes: q.Last.StateMemoryBytes, Exception: q.Exception}
		if _, ok := q.RateRatio(); ok {
			in, done := q.InputRowsPerSecond, q.ProcessedRowsPerSecond
			s.InputRowsPerSecond, s.ProcessedRowsPerSecond = &in, &done
		}
		out = append(out, s)
	}
	return out
}

func memory(m *analyze.MemorySizing) *Memory {
	if m == nil {
		return nil
	}
	out := &Memory{Executors: m.Executors, HeapBytes: m.HeapBytes, PeakHeapBytes: m.PeakHeapBytes, OffHeapBytes: m.OffHeapBytes,
		PeakOffHeapBytes: m.PeakOffHeapBytes, Headroom: m.Headroom, Keep: m.Keep, ExecutorHours: m.ExecutorHours,
		SavedGiBHours: m.SavedGiBHours}
	if m.SuggestedHeapBytes > 0 {
		v := m.SuggestedHeapBytes
		out.SuggestedHeapBytes = &v
	}
	return out
}
