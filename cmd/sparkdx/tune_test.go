package main

import (
	"encoding/json"
	"math"
	"os"
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
		{[]string{"tune", "--price-file", "/nonexistent/prices.yaml", log}, 2, "--price-file"},
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

// TestAnalyzePrices checks the price flags and the price file put money
// in the JSON report at the prices given — the flags over the file's
// defaults — and that without them there is none.
func TestAnalyzePrices(t *testing.T) {
	log := spillLog(t)
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	yamlFile := file("prices.yaml", "coreHour: 0.05\ngbHour: 0.01\n")
	jsonFile := file("prices.json", `{"coreHour": 7, "gbHour": 0.01, "instanceTypes": {"m5.large": {"coreHour": 9}}}`)
	badFile := file("bad.yaml", "coreHour: 0.05\ngbHours: 0.01\n")
	for _, tc := range []struct {
		name      string
		args      []string
		core, gib float64 // the prices the money must be at; none: no money
		err       string
	}{
		{"none", nil, 0, 0, ""},
		{"flags", []string{"--price-core-hour", "0.05", "--price-gb-hour", "0.01"}, 0.05, 0.01, ""},
		{"yaml file", []string{"--price-file", yamlFile}, 0.05, 0.01, ""},
		{"flag over the json file", []string{"--price-file", jsonFile, "--price-core-hour", "0.05"}, 0.05, 0.01, ""},
		{"misspelt file", []string{"--price-file", badFile}, 0, 0, `unknown field "gbHours"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(append(append([]string{"analyze", "--format", "json"}, tc.args...), log)...)
			if tc.err != "" {
				if code != 2 || !strings.Contains(errs, tc.err) {
					t.Fatalf("got exit %d, %q; want 2 and %q", code, errs, tc.err)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var r struct {
				ResourceCost struct {
					Total struct {
						CoreHours     float64  `json:"coreHours"`
						MemoryGBHours float64  `json:"memoryGbHours"`
						Money         *float64 `json:"money"`
					} `json:"total"`
				} `json:"resourceCost"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			tot := r.ResourceCost.Total
			if tot.CoreHours <= 0 {
				t.Errorf("core-hours %v, want > 0", tot.CoreHours)
			}
			want := tot.CoreHours*tc.core + tot.MemoryGBHours*tc.gib
			switch {
			case (tot.Money != nil) != (tc.core > 0):
				t.Errorf("money %v, want present: %v", tot.Money, tc.core > 0)
			case tot.Money != nil && math.Abs(*tot.Money-want) > 1e-9:
				t.Errorf("money %v, want %v", *tot.Money, want)
			}
		})
	}
}
