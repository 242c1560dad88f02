package chart

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/model"
)

// DurationBucket is one column of the task-duration heatmap: attempts
// shorter than UpTo ms and not shorter than the column before's.
type DurationBucket struct {
	UpTo  int64
	Label string
}

// DurationBuckets are the task-duration columns, on a log scale.
func DurationBuckets() []DurationBucket {
	return []DurationBucket{
		{10, "<10ms"}, {100, "10–100ms"}, {1000, "0.1–1s"}, {10_000, "1–10s"}, {60_000, "10s–1m"},
		{600_000, "1–10m"}, {3_600_000, "10m–1h"}, {1 << 62, "≥1h"},
	}
}

// bucketOf is the column of a duration of ms.
func bucketOf(buckets []DurationBucket, ms int64) int {
	for i, b := range buckets {
		if ms < b.UpTo {
			return i
		}
	}
	return len(buckets) - 1
}

// DurationRow is one executor's finished task attempts: Counts has one
// entry per DurationBuckets column for the successful ones, then one for
// the failed ones.
type DurationRow struct {
	ExecutorID string
	Counts     []int
	Total      int
}

// Durations counts finished task attempts per executor and duration
// bucket, failed attempts apart: a slow or sick executor shows as a row
// shifted right. Rows are in the model's executor order, then executors it
// does not list by id.
func Durations(a *model.Attempt) []DurationRow {
	buckets := DurationBuckets()
	rows := map[string]*DurationRow{}
	for _, s := range a.Stages {
		for _, t := range s.Tasks {
			if t.FinishTime == 0 {
				continue
			}
			rw := rows[t.ExecutorID]
			if rw == nil {
				rw = &DurationRow{ExecutorID: t.ExecutorID, Counts: make([]int, len(buckets)+1)}
				rows[t.ExecutorID] = rw
			}
			if t.Failed {
				rw.Counts[len(buckets)]++
			} else {
				rw.Counts[bucketOf(buckets, t.FinishTime-t.LaunchTime)]++
			}
			rw.Total++
		}
	}
	var out []DurationRow
	for _, e := range a.Executors {
		if rw := rows[e.ID]; rw != nil {
			out = append(out, *rw)
			delete(rows, e.ID) // an id listed twice is drawn once
		}
	}
	rest := make([]string, 0, len(rows))
	for id := range rows {
		rest = append(rest, id)
	}
	sort.Strings(rest)
	for _, id := range rest {
		out = append(out, *rows[id])
	}
	return out
}
