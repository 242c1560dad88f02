package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

func TestStreaming(t *testing.T) {
	// Ten batches, back to back from the second on: 1 s, then each 200 ms
	// longer, reading 1,000 rows per second of the batch before.
	var ps []model.StreamingProgress
	at, dur := int64(10_000), int64(1000)
	for i := range 10 {
		rows := int64(0)
		if i > 0 {
			prev := ps[i-1]
			at, dur, rows = prev.Time+prev.BatchDurationMs, prev.BatchDurationMs+200, prev.BatchDurationMs
		}
		ps = append(ps, model.StreamingProgress{BatchID: int64(i), Time: at, BatchDurationMs: dur, NumInputRows: rows, StateRows: int64(i)})
	}
	a := &model.Attempt{Streaming: []*model.StreamingQuery{
		{ID: "q", RunID: "r1", Name: "n", StartTime: 10_000, EndTime: model.NoTime, Progress: ps},
		{ID: "empty", RunID: "r0"},
	}}
	got := streaming(a)
	if len(got) != 2 {
		t.Fatalf("got %d queries, want 2", len(got))
	}
	q := got[0]
	// Recent: batches 5..9 (the later half, 5). Rows 1800+2000+2200+2400+2600
	// = 11000 arrived over the previous batches' 1800+…+2600 = 11000 ms and
	// were processed in 2000+…+2800 = 12000 ms.
	if q.Batches != 10 || q.Recent != 5 || q.RecentRows != 11000 {
		t.Errorf("got batches %d recent %d rows %d, want 10, 5, 11000", q.Batches, q.Recent, q.RecentRows)
	}
	if q.InputRowsPerSecond != 1000 {
		t.Errorf("input rate: got %v, want 1000", q.InputRowsPerSecond)
	}
	if want := 11000.0 * 1000 / 12000; q.ProcessedRowsPerSecond != want {
		t.Errorf("process rate: got %v, want %v", q.ProcessedRowsPerSecond, want)
	}
	// Early batches 0..4: 1000, 1200, 1400, 1600, 1800 → median 1400.
	if q.EarlyBatchMs != 1400 || q.LastBatchMs != 2800 || q.Last.StateRows != 9 {
		t.Errorf("got early %d last %d state rows %d, want 1400, 2800, 9", q.EarlyBatchMs, q.LastBatchMs, q.Last.StateRows)
	}
	if e := got[1]; e.Batches != 0 || e.Recent != 0 || e.InputRowsPerSecond != 0 {
		t.Errorf("a query without batches: got %+v", e)
	}
}

func TestLatestQueries(t *testing.T) {
	run := func(id, runID string, last int64) StreamingQuery {
		return StreamingQuery{ID: id, RunID: runID, Batches: 1, Last: model.StreamingProgress{Time: last}}
	}
	r := &Result{Streaming: []StreamingQuery{
		run("a", "a1", 100), run("b", "b1", 300), run("a", "a2", 200), run("c", "c1", 50),
		{ID: "d", RunID: "d1"}, // no batch: nothing to report
	}}
	var got []string
	for _, q := range r.LatestQueries(0) {
		got = append(got, q.RunID)
	}
	if want := []string{"b1", "a2", "c1"}; !slices.Equal(got, want) {
		t.Errorf("got runs %v, want %v (each query's latest run, latest first)", got, want)
	}
	if got := r.LatestQueries(2); len(got) != 2 || got[1].RunID != "a2" {
		t.Errorf("bounded to 2: got %d, want b1, a2", len(got))
	}
}

// A micro-batch's sink write is the query's work; a batch write command,
// or a write in a plain SQL execution, still writes.
func TestMicroBatchIsNotAWrite(t *testing.T) {
	plan := func(root string) *model.SQLPlanNode {
		return &model.SQLPlanNode{NodeName: root, Children: []*model.SQLPlanNode{{NodeName: "MicroBatchScan"}}}
	}
	micro := "behind\nid = 6fbd1174\nrunId = 09591cf3\nbatch = 7"
	for _, c := range []struct {
		desc, root string
		write      bool
	}{
		{micro, "WriteToDataSourceV2", false},
		{"save at job.py:3", "WriteToDataSourceV2", true}, // Spark 2.4's batch DataSource V2 write
		{micro, "Execute InsertIntoHadoopFsRelationCommand", true},
		{"insert at job.py:9", "AppendData", true},
		// Spark's noop source keeps nothing (4.x names it in the node, 3.5 in
		// the description): the query's work, not a write.
		{"save at job.py:4", "OverwriteByExpression noop-table", false},
		{"save at job.py:4", "OverwriteByExpression|org.apache.spark.sql.execution.datasources.noop.NoopWrite$@4172e16b", false},
	} {
		root, desc, _ := strings.Cut(c.root, "|")
		p := plan(root)
		p.SimpleString = root + " " + desc
		a := &model.Attempt{SQL: []*model.SQLExecution{{ID: 1, Description: c.desc, Plan: p}}}
		if got := sqlStats(a, sqlAccums{}); got[0].IsWrite != c.write {
			t.Errorf("%q under %q: got write %v, want %v", c.root, c.desc, got[0].IsWrite, c.write)
		}
	}
}
