package model

import "math"

// An event log is input: a task may say it ended before it started, or
// carry a time of ±2^63 or a run time of 2^62. Sums and durations over
// such values go through these helpers, which saturate at the int64
// bounds instead of wrapping (16 run times of 2^62 summed to 0), and
// durations are never negative; the replay counts what it saw of them
// in Attempt.Impossible.

// SatAdd is a+b, held at math.MaxInt64 or math.MinInt64 instead of
// wrapping.
func SatAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// Span is the duration from start to end: end-start, 0 when end is
// before start, math.MaxInt64 when the difference overflows.
func Span(start, end int64) int64 {
	if end <= start {
		return 0
	}
	d := end - start
	if d < 0 { // end > start but the difference wraps
		return math.MaxInt64
	}
	return d
}

// SatMul is a×b, held at the int64 bounds instead of wrapping.
func SatMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		if (a > 0) == (b > 0) {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return p
}
