package delta

import (
	"context"
	"fmt"
)

// A driver that never stops would never reach the apps table, so its
// ended jobs and stages are written while it runs. What was written is a
// completion-time watermark, kept as the version of a Delta transaction
// identifier in the jobs and in the stages table: every ended job (stage
// attempt) that completed at or before the watermark (epoch ms) is in the
// table. The watermark is derived from the rows alone, so it survives a
// restart and a compacted log, and the write at the application's end
// leaves out exactly the rows already there.
//
// Spark's DAGScheduler stamps JobEnd and StageCompleted from one thread
// and the event log keeps their order, so once a row that completed at t
// is read, every row that completed before t is read too; rows of the
// latest millisecond read may still have a sibling unread, which is why
// the caller passes a watermark that holds the newest millisecond back
// until a later read (LiveMark).

// LiveTxnID is the transaction identifier whose version is an application
// attempt's watermark in the jobs and stages tables.
func LiveTxnID(appID, attemptID string) string { return "sparkdx-live:" + appID + "/" + attemptID }

// jobEnd is an ended job's completion time (epoch ms); ok is false for a
// job still running or without a completion time.
func jobEnd(r *JobRow) (int64, bool) {
	if r.CompletionTime == nil || (r.Status != "SUCCEEDED" && r.Status != "FAILED") {
		return 0, false
	}
	return r.CompletionTime.UnixMilli(), true
}

// stageEnd is an ended stage attempt's completion time (epoch ms); ok is
// false for a stage attempt active, pending or skipped.
func stageEnd(r *StageRow) (int64, bool) {
	if r.CompletionTime == nil || (r.Status != "COMPLETE" && r.Status != "FAILED") {
		return 0, false
	}
	return r.CompletionTime.UnixMilli(), true
}

// LiveMark is the watermark rows may be written up to: below the newest
// completion time (newest) read now, or up to prev, the newest read at an
// earlier turn (its millisecond is complete by now).
func LiveMark(newest, prev int64) int64 {
	if prev >= newest {
		return newest
	}
	return newest - 1
}

// Newest is the latest completion time (epoch ms) of the ended jobs and of
// the ended stage attempts among rows; 0 when none ended.
func Newest(rows AppRows) (jobs, stages int64) {
	for i := range rows.Jobs {
		if t, ok := jobEnd(&rows.Jobs[i]); ok {
			jobs = max(jobs, t)
		}
	}
	for i := range rows.Stages {
		if t, ok := stageEnd(&rows.Stages[i]); ok {
			stages = max(stages, t)
		}
	}
	return jobs, stages
}

// Live is an application attempt's watermarks: its ended jobs and stage
// attempts completed at or before them are in the tables; 0 when none is.
func (ts *Tables) Live(appID, attemptID string) (jobs, stages int64) {
	id := LiveTxnID(appID, attemptID)
	jobs, _ = ts.Jobs.TxnVersion(id)
	stages, _ = ts.Stages.TxnVersion(id)
	return jobs, stages
}

// LiveResult says what WriteLive wrote.
type LiveResult struct {
	Jobs, Stages int // rows appended
}

// WriteLive appends a running application attempt's ended jobs and stage
// attempts that completed after the tables' watermarks and at or before
// jobsMark and stagesMark (epoch ms), and moves the watermarks there.
// Nothing is written once the attempt's final rows are in (WriteApp).
func (ts *Tables) WriteLive(ctx context.Context, rows AppRows, jobsMark, stagesMark int64) (LiveResult, error) {
	ts.liveMu.Lock()
	defer ts.liveMu.Unlock()
	var res LiveResult
	appTxn := AppTxnID(rows.App.AppID, rows.App.AttemptID)
	if ts.Jobs.HasTxn(appTxn, 1) || ts.Stages.HasTxn(appTxn, 1) {
		return res, nil
	}
	id := LiveTxnID(rows.App.AppID, rows.App.AttemptID)
	jv, sv := ts.Live(rows.App.AppID, rows.App.AttemptID)
	if jobsMark > jv {
		jobs := between(rows.Jobs, jobEnd, jv, jobsMark)
		if _, err := ts.Jobs.Append(ctx, jobs, AppendOptions{TxnAppID: id, TxnVersion: jobsMark}); err != nil {
			return res, fmt.Errorf("table %s: %w", TableJobs, err)
		}
		res.Jobs = len(jobs)
	}
	if stagesMark > sv {
		stages := between(rows.Stages, stageEnd, sv, stagesMark)
		if _, err := ts.Stages.Append(ctx, stages, AppendOptions{TxnAppID: id, TxnVersion: stagesMark}); err != nil {
			return res, fmt.Errorf("table %s: %w", TableStages, err)
		}
		res.Stages = len(stages)
	}
	return res, nil
}

// between keeps the rows that ended in (after, upTo].
func between[T any](rows []T, end func(*T) (int64, bool), after, upTo int64) []T {
	var out []T
	for i := range rows {
		if t, ok := end(&rows[i]); ok && t > after && t <= upTo {
			out = append(out, rows[i])
		}
	}
	return out
}

// notYet drops the rows written while the application ran: those that
// ended at or before the watermark mark.
func notYet[T any](rows []T, end func(*T) (int64, bool), mark int64) []T {
	if mark <= 0 {
		return rows
	}
	out := make([]T, 0, len(rows))
	for i := range rows {
		if t, ok := end(&rows[i]); !ok || t > mark {
			out = append(out, rows[i])
		}
	}
	return out
}
