package units

import (
	"math"
	"testing"
)

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{5 << 20, "5.0 MiB"},
		{3 << 30, "3.0 GiB"},
		{1 << 50, "1.0 PiB"},
		{math.MaxInt64, "8.0 EiB"},
		{-512, "-512 B"},
		{-1536, "-1.5 KiB"},
		{math.MinInt64, "-8.0 EiB"},
	} {
		if got := Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%d): got %q, want %q", c.n, got, c.want)
		}
	}
}

func TestMillis(t *testing.T) {
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{0, "0ms"},
		{46, "46ms"},
		{999, "999ms"},
		{1000, "1.0s"},
		{5449, "5.4s"},
		{5450, "5.5s"},
		{59_949, "59.9s"},
		{59_950, "1m00s"},
		{63_794, "1m04s"},
		{63_499, "1m03s"},
		{3_599_499, "59m59s"},
		{3_599_500, "1h00m"},
		{7_529_999, "2h05m"},
		{7_530_000, "2h06m"},
		{-1500, "-1.5s"},
		{math.MaxInt64, "2562047788015h13m"},
		{math.MinInt64, "-2562047788015h13m"},
	} {
		if got := Millis(c.ms); got != c.want {
			t.Errorf("Millis(%d): got %q, want %q", c.ms, got, c.want)
		}
	}
}
