package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func spillLog(t *testing.T) string {
	logs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "spill", "spark-4.3.0", "*.zstd"))
	if len(logs) != 1 {
		t.Fatalf("spill scenario: %d logs, want 1", len(logs))
	}
	return logs[0]
}

// TestTuneCommand checks every output form of sparkdx tune on the real
// spill scenario, and its usage errors.
func TestTuneCommand(t *testing.T) {
	log := spillLog(t)
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout (code 0) or stderr
	}{
		{[]string{"tune", log}, 0, "spark.memory.fraction: 0.05 → 0.6"},
		{[]string{"tune", "--format", "conf", log}, 0, "--conf spark.memory.fraction=0.6\n"},
		{[]string{"tune", "--format", "defaults", log}, 0, "spark.memory.fraction"},
		{[]string{"tune", "--format", "json", "--price-core-hour", "1", log}, 0, `"property": "spark.memory.fraction"`},
		{[]string{"tune", "--format", "yaml", log}, 2, "--format yaml"},
		{[]string{"tune"}, 2, "usage: sparkdx tune"},
		{[]string{"tune", "--price-gb-hour", "-2", log}, 2, "--price-gb-hour"},
		{[]string{"tune", "/nonexistent/log"}, 2, "/nonexistent/log"},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			code, out, errs := runCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("got exit %d, want %d: %s", code, tc.code, errs)
			}
			got := out
			if code != 0 {
				got = errs
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// TestAnalyzePrices checks the price flags put money in the JSON report,
// and that without them there is none.
func TestAnalyzePrices(t *testing.T) {
	log := spillLog(t)
	for _, tc := range []struct {
		args      []string
		wantMoney bool
	}{
		{[]string{"analyze", "--format", "json", log}, false},
		{[]string{"analyze", "--format", "json", "--price-core-hour", "0.05", "--price-gb-hour", "0.01", log}, true},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		var r struct {
			ResourceCost struct {
				Total struct {
					CoreHours float64  `json:"coreHours"`
					Money     *float64 `json:"money"`
				} `json:"total"`
			} `json:"resourceCost"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		tot := r.ResourceCost.Total
		if tot.CoreHours <= 0 {
			t.Errorf("%v: core-hours %v, want > 0", tc.args, tot.CoreHours)
		}
		if (tot.Money != nil) != tc.wantMoney {
			t.Errorf("%v: money %v, want present: %v", tc.args, tot.Money, tc.wantMoney)
		}
		if tc.wantMoney && tot.Money != nil && *tot.Money <= 0.05*tot.CoreHours {
			t.Errorf("money %v: want above the core-hours' %v", *tot.Money, 0.05*tot.CoreHours)
		}
	}
}
