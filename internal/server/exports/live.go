package exports

import (
	"context"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/server"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
)

// writeLive writes the jobs and stage attempts that ended in running
// applications since the last turn, so that a driver that never stops has
// its rows in Delta within a turn or two; the rest come with the
// application's end (Finished). A log is analysed only when a job or stage
// ended past the tables' watermarks.
func (x *Exports) writeLive(ctx context.Context, in *ingest.Ingester) {
	running := map[string]bool{}
	for _, rec := range in.Records() {
		if ctx.Err() != nil {
			return
		}
		if rec.Done || rec.AppID == "" || rec.Error != "" {
			continue
		}
		running[rec.Key] = true
		a, release, err := in.Attempt(ctx, rec.Key)
		if err != nil {
			continue // not read yet, or gone: the next turn sees it
		}
		input := ingest.Input{Attempt: a, InProgress: true, Now: time.Now(),
			Log: reportv1.Log{Path: rec.Path, Codec: rec.Codec, Bytes: rec.Size, Events: rec.Events}}
		rows, mj, ms, ok := x.liveRows(rec.Key, input)
		release() // the write must not hold the log's reader
		if !ok {
			continue
		}
		_, err = x.tables.WriteLive(ctx, rows, mj, ms)
		x.appWrites.Record(err)
		if err != nil {
			x.fail(&x.deltaErrors, "delta live write", input, err)
		}
	}
	x.mu.Lock()
	for k := range x.newest {
		if !running[k] {
			delete(x.newest, k)
		}
	}
	x.mu.Unlock()
}

// liveRows returns a running attempt's rows and the watermarks to write
// them up to; ok is false when nothing ended past the tables' watermarks.
func (x *Exports) liveRows(key string, in ingest.Input) (rows delta.AppRows, jobsMark, stagesMark int64, ok bool) {
	a := in.Attempt
	if a.Completed {
		return rows, 0, 0, false // Finished writes it whole
	}
	jv, sv := x.tables.Live(a.AppID, a.AttemptID)
	nj, ns := newestEnds(a)
	x.mu.Lock()
	prev := x.newest[key]
	x.newest[key] = [2]int64{nj, ns}
	x.mu.Unlock()
	jobsMark, stagesMark = delta.LiveMark(nj, prev[0]), delta.LiveMark(ns, prev[1])
	if jobsMark <= jv && stagesMark <= sv {
		return rows, 0, 0, false
	}
	an := server.Analyze(x.st, in)
	return delta.RowsOf(a, an.Report, x.red, in.Now), jobsMark, stagesMark, true
}

// newestEnds is the latest completion time of the attempt's ended jobs and
// of its ended stage attempts, as delta.Newest finds it in their rows.
func newestEnds(a *model.Attempt) (jobs, stages int64) {
	for _, j := range a.Jobs {
		if j.CompletionTime != model.NoTime && (j.Status == model.JobSucceeded || j.Status == model.JobFailed) {
			jobs = max(jobs, j.CompletionTime)
		}
	}
	for _, s := range a.Stages {
		if s.CompletionTime != model.NoTime && (s.Status == model.StageComplete || s.Status == model.StageFailed) {
			stages = max(stages, s.CompletionTime)
		}
	}
	return jobs, stages
}
