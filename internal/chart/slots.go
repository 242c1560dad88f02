package chart

import (
	"sort"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/model"
)

// SlotRow is one executor's task time per time bucket.
type SlotRow struct {
	ExecutorID string
	Slots      int     // task slots: the executor's cores, 1 when the log does not say
	BusyMs     []int64 // per bucket, Σ of its task attempts' time within it
}

// Busy is the share of the row's slots busy in bucket b of bucketMs.
func (r SlotRow) Busy(b int, bucketMs int64) float64 {
	return min(float64(r.BusyMs[b])/float64(max(bucketMs, 1)*int64(r.Slots)), 1)
}

// SlotBusy is, per executor and for each of n equal buckets of [start,
// start+span], the task time run there: every launched task attempt from
// launch to finish, or to start+span when it has not finished. Rows are in
// executor id order, numeric ids by number.
func SlotBusy(a *model.Attempt, start, span int64, n int) []SlotRow {
	busy := map[string][]int64{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.LaunchTime <= 0 {
				continue
			}
			stop := t.FinishTime
			if stop == 0 {
				stop = start + span
			}
			row := busy[t.ExecutorID]
			if row == nil {
				row = make([]int64, n)
				busy[t.ExecutorID] = row
			}
			for b := range n {
				b0 := start + span*int64(b)/int64(n)
				b1 := start + span*int64(b+1)/int64(n)
				if o := min(stop, b1) - max(t.LaunchTime, b0); o > 0 {
					row[b] += o
				}
			}
		}
	}
	rows := make([]SlotRow, 0, len(busy))
	for id, ms := range busy {
		r := SlotRow{ExecutorID: id, Slots: 1, BusyMs: ms}
		if e := a.Executor(id); e != nil && e.TotalCores > 0 {
			r.Slots = e.TotalCores
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		ni, ei := strconv.Atoi(rows[i].ExecutorID)
		nj, ej := strconv.Atoi(rows[j].ExecutorID)
		if ei == nil && ej == nil {
			return ni < nj
		}
		return rows[i].ExecutorID < rows[j].ExecutorID
	})
	return rows
}
