package analyze

import "testing"

// TestGPUValue reads the RAPIDS Accelerator's accumulator values as its
// NanoTime and LongAccumulator print them; anything else is nothing.
func TestGPUValue(t *testing.T) {
	for _, c := range []struct {
		in    string
		ms, n int64
	}{
		{"00:01:02.500", 62500, 0},
		{"01:00:00.000", 3_600_000, 0},
		{"3", 0, 3},
		{"2500000000", 2500, 2_500_000_000}, // a timer some versions write in ns
		{"-1", 0, 0},
		{"00:xx:01.0", 0, 0},
		{"00:00:NaN", 0, 0},
		{"99999999:00:00.000", 0, 0},
		{"", 0, 0},
	} {
		if ms, n := gpuValue(c.in); ms != c.ms || n != c.n {
			t.Errorf("gpuValue(%q) = %d ms, %d; want %d ms, %d", c.in, ms, n, c.ms, c.n)
		}
	}
}
