package report

import (
	"fmt"
	"io"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/units"
)

// MemoryLines say the executors' memory against what was asked, for
// people: the heap (with the suggested ask and what it saves, or why to
// keep it) and the JVM's off-heap. nil without executor memory peaks.
func MemoryLines(m *analyze.MemorySizing) [][2]string {
	if m == nil {
		return nil
	}
	heap := fmt.Sprintf("peak %s of the %s asked (%s)", fmtBytes(m.PeakHeapBytes), fmtBytes(m.HeapBytes),
		fmtPct(share(m.PeakHeapBytes, m.HeapBytes)))
	if m.SuggestedHeapBytes > 0 {
		heap += fmt.Sprintf("; %s (%s headroom) would save %s GiB-hours over %s of executor time",
			fmtBytes(m.SuggestedHeapBytes), fmtPct(m.Headroom), gibHours(m.SavedGiBHours), fmtDuration(int64(m.ExecutorHours*3.6e6)))
	} else if m.Keep != "" {
		heap += "; keep it: " + m.Keep
	}
	off := fmt.Sprintf("peak %s of the %s the container holds beyond the heap", fmtBytes(m.PeakOffHeapBytes), fmtBytes(m.OffHeapBytes))
	return [][2]string{{"heap", heap}, {"off-heap", off}}
}

// writeMemory writes the executor memory sizing, when the log has peaks.
func writeMemory(w io.Writer, r *analyze.Result, st style) {
	lines := MemoryLines(r.Memory)
	if lines == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Executor memory"), st.dim(plural(r.Memory.Executors, "executor")+" with memory peaks"))
	for _, l := range lines {
		fmt.Fprintf(w, "  %s  %s\n", st.dim(fmt.Sprintf("%-8s", l[0])), l[1])
	}
}

// streamingRow is one streaming query as the reports show it.
type streamingRow struct {
	Query, Batches, Input, Processed, Durations, State, Exception string
}

func streamingRows(qs []analyze.StreamingQuery) []streamingRow {
	out := make([]streamingRow, 0, len(qs))
	for i := range qs {
		q := &qs[i]
		name := q.Name
		if name == "" {
			name = q.ID
		}
		row := streamingRow{Query: units.OneLine(name), Batches: fmt.Sprint(q.Batches), Input: "-", Processed: "-",
			Durations: fmt.Sprintf("%s → %s → %s", fmtDurationOrDash(q.EarlyBatchMs), fmtDurationOrDash(q.RecentBatchMs),
				fmtDurationOrDash(q.LastBatchMs)),
			State: "-", Exception: units.OneLine(q.Exception)}
		if _, ok := q.RateRatio(); ok {
			row.Input, row.Processed = rate(q.InputRowsPerSecond), rate(q.ProcessedRowsPerSecond)
		}
		if q.Last.StateRows > 0 || q.Last.StateMemoryBytes > 0 {
			row.State = fmt.Sprintf("%s, %s", rows(q.Last.StateRows), fmtBytes(q.Last.StateMemoryBytes))
		}
		out = append(out, row)
	}
	return out
}

func rate(v float64) string { return fmtCount(int64(v + 0.5)) }

// gibHours says GiB-hours with two significant digits below 10.
func gibHours(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

func rows(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmtCount(n) + " rows"
}

// writeStreaming writes a line per streaming query run, whenever the app
// has any (whether or not streaming-behind fired).
func writeStreaming(w io.Writer, r *analyze.Result, st style) {
	rows := streamingRows(r.Streaming)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Streaming queries"), st.dim(plural(len(rows), "query run")+
		"; rates over the later half of the batches, batch duration early → recent → last"))
	t := &table{head: []string{"query", "batches", "input rows/s", "processed rows/s", "batch duration", "state"},
		right: []bool{false, true, true, true, true, false}}
	for _, q := range rows {
		t.add(nil, units.ShortName(q.Query, 40), q.Batches, q.Input, q.Processed, q.Durations, q.State)
	}
	t.write(w, st, "  ")
}
