package model

import (
	"math"
	"testing"
)

func TestSat(t *testing.T) {
	const big, mx, mn = int64(1) << 62, int64(math.MaxInt64), int64(math.MinInt64)
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"add", SatAdd(1, 2), 3},
		{"add past max", SatAdd(mx, 1), mx},
		{"add past min", SatAdd(mn, -1), mn},
		{"2^62 + 2^62", SatAdd(big, big), mx},
		{"mixed signs", SatAdd(mx, mn), -1},
		{"span", Span(1000, 1500), 500},
		{"ends before it starts", Span(1500, 1000), 0},
		{"±2^63", Span(mn, mx), mx},
		{"mul", SatMul(3, -4), -12},
		{"mul past max", SatMul(big, 4), mx},
		{"mul past min", SatMul(big, -4), mn},
		{"min × -1", SatMul(mn, -1), mx},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestAddSaturates: sixteen run times of 2^62 summed to 0 before
// (issue 32, item 8); now they hold at the maximum, and say so.
func TestAddSaturates(t *testing.T) {
	var sum TaskMetrics
	one := TaskMetrics{ExecutorRunTime: 1 << 62}
	sat := 0
	for range 16 {
		sat += sum.Add(&one, 1)
	}
	if sum.ExecutorRunTime != math.MaxInt64 || sat == 0 {
		t.Errorf("got %d (saturated %d times), want MaxInt64 and saturations counted", sum.ExecutorRunTime, sat)
	}
	var back TaskMetrics
	back.Add(&TaskMetrics{JvmGcTime: math.MinInt64}, -1)
	if back.JvmGcTime != math.MaxInt64 {
		t.Errorf("subtracting MinInt64: got %d, want MaxInt64", back.JvmGcTime)
	}
	if (&Task{LaunchTime: 2000, FinishTime: 1000}).Duration(0) != 0 {
		t.Error("a task that ends before it starts: want duration 0")
	}
}
