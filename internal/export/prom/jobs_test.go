package prom

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Ended jobs count by status, running ones and ones without a time not at
// all; a bucket counts every job at or under its bound.
func TestJobDurations(t *testing.T) {
	job := func(status string, submit, end int64) *model.Job {
		return &model.Job{Status: status, SubmissionTime: submit, CompletionTime: end}
	}
	h := jobDurations([]*model.Job{
		job(model.JobSucceeded, 1_000, 1_040),      // 0.04 s
		job(model.JobSucceeded, 1_000, 4_000),      // 3 s
		job(model.JobFailed, 2_000, 2_200),         // 0.2 s
		job(model.JobRunning, 5_000, model.NoTime), // not ended
		job(model.JobSucceeded, model.NoTime, 9_000),
		job(model.JobUnknown, 1_000, 2_000),
	})
	for _, c := range []struct {
		status       string
		count        uint64
		sum          float64
		le005, le025 uint64 // buckets 0.05 s and 0.25 s
		le5          uint64
	}{
		{"succeeded", 2, 3.04, 1, 1, 2},
		{"failed", 1, 0.2, 0, 1, 1},
	} {
		got := h[c.status]
		if got.Count != c.count || got.Sum != c.sum || got.Buckets[0] != c.le005 || got.Buckets[2] != c.le025 || got.Buckets[6] != c.le5 {
			t.Errorf("%s: got count %d sum %v buckets %v, want count %d sum %v le0.05 %d le0.25 %d le5 %d",
				c.status, got.Count, got.Sum, got.Buckets, c.count, c.sum, c.le005, c.le025, c.le5)
		}
	}
}
