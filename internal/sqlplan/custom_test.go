package sqlplan

import "testing"

func TestCustomValue(t *testing.T) {
	for _, c := range []struct {
		name, metricType string
		values           []int64
		want             string
		ok               bool
	}{
		{"built-in type", Timing, []int64{1, 2}, "", false},
		{"unknown built-in type", "count", []int64{1, 2}, "", false},
		{"vendor class", "v2Custom_com.example.ReadMetrics", []int64{3, 3}, "N/A", true},
		{"python data source", "v2Custom_" + pythonCustomMetric, []int64{1024, 2048},
			"total (min, med, max (stageId: taskId))\n3.0 KiB (1024.0 B, 2.0 KiB, 2.0 KiB (driver))", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := CustomValue(c.metricType, c.values)
			if got != c.want || ok != c.ok {
				t.Errorf("CustomValue(%q, %v): got %q, %v, want %q, %v", c.metricType, c.values, got, ok, c.want, c.ok)
			}
		})
	}
}
