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
