package sqlplan

import "testing"

// The expected strings are what Spark 4's MetricUtils.stringValue and
// Utils' formatters print for the same values (Java's %.1f rounds the
// shortest decimal half up: 2.25 KiB prints as 2.3).
func TestStringValue(t *testing.T) {
	max := &MaxTask{Value: 35, StageID: 1, AttemptID: 0, Task: 7}
	for _, c := range []struct {
		name, typ string
		values    []int64
		max       *MaxTask
		want      string
	}{
		{"sum groups digits", Sum, []int64{1000, 234567}, nil, "235,567"},
		{"sum keeps negatives", Sum, []int64{-5}, nil, "-5"},
		{"sum of nothing", Sum, nil, nil, "0"},
		{"one valid size", Size, []int64{-1, 2048}, max, "2.0 KiB"},
		{"no valid timing", Timing, []int64{-1}, max, "0 ms"},
		{"size total", Size, []int64{380, 372, 376, -1}, &MaxTask{380, 2, 0, 15}, "total (min, med, max (stageId: taskId))\n1128.0 B (372.0 B, 376.0 B, 380.0 B (stage 2.0: task 15))"},
		{"timing from the driver", Timing, []int64{27, 1, 13}, nil, "total (min, med, max (stageId: taskId))\n41 ms (1 ms, 13 ms, 27 ms (driver))"},
		{"ns timing truncates to ms", NsTiming, []int64{1_999_999, 3_000_000}, max, "total (min, med, max (stageId: taskId))\n4 ms (1 ms, 3 ms, 3 ms (stage 1.0: task 7))"},
		{"average", Average, []int64{12, 0, 35, 20}, max, "(min, med, max (stageId: taskId)):\n(1.2, 2, 3.5 (stage 1.0: task 7))"},
		{"one average", Average, []int64{0, 12345}, max, "1,234.5"},
		{"unknown type", "custom", []int64{1234}, nil, "[unknown] 1,234"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := StringValue(c.typ, c.values, c.max); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestBytesString(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0.0 B"}, {2047, "2047.0 B"}, {2048, "2.0 KiB"}, {3788, "3.7 KiB"},
		{2304, "2.3 KiB"}, // 2.25: half up, as Java rounds
		{2621440, "2.5 MiB"}, {1 << 40, "1024.0 GiB"}, {3 << 60, "3.0 EiB"},
	} {
		if got := BytesString(c.in); got != c.want {
			t.Errorf("BytesString(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMsDurationString(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0 ms"}, {999, "999 ms"}, {1000, "1.0 s"},
		{1250, "1.3 s"}, // 1.25f is exact: half up
		{1150, "1.1 s"}, // 1.15f is 1.1499999761…
		{59_999, "60.0 s"}, {90_000, "1.5 m"}, {5_400_000, "1.50 h"}, {3_600_000 * 100, "100.00 h"},
	} {
		if got := MsDurationString(c.in); got != c.want {
			t.Errorf("MsDurationString(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJavaFixed(t *testing.T) {
	for _, c := range []struct {
		x    float64
		prec int
		want string
	}{
		{0, 1, "0.0"}, {0.05, 1, "0.1"}, {0.04999, 1, "0.0"}, {9.96, 1, "10.0"}, {99.995, 2, "100.00"},
		{-1.25, 1, "-1.3"}, {123456.78, 1, "123456.8"}, {1e-7, 2, "0.00"},
	} {
		if got := javaFixed(c.x, c.prec); got != c.want {
			t.Errorf("javaFixed(%v, %d) = %q, want %q", c.x, c.prec, got, c.want)
		}
	}
}

func FuzzStringValue(f *testing.F) {
	f.Add("size", int64(1), int64(-1), int64(1<<62))
	f.Add("timing", int64(0), int64(5), int64(-3))
	f.Add("average", int64(7), int64(0), int64(1<<62))
	f.Fuzz(func(t *testing.T, typ string, a, b, c int64) {
		if s := StringValue(typ, []int64{a, b, c}, &MaxTask{Value: c}); s == "" {
			t.Errorf("empty string for %s %d %d %d", typ, a, b, c)
		}
	})
}
