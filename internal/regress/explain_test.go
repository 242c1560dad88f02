package regress_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/test/scenario"
)

func input(t *testing.T, name, line string) (diff.Input, regress.Sample) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", name, "spark-"+line, "*.zstd"))
	if len(logs) != 1 {
		t.Fatalf("%s: %d logs, want 1", name, len(logs))
	}
	d, err := scenario.Diagnose(context.Background(), logs[0])
	if err != nil {
		t.Fatal(err)
	}
	p := pipeline.Diagnose(d.Attempt, d.Result, pipeline.Source{}, nil)
	return diff.Input{Report: p.Report, Result: p.Result}, regress.SampleOf(name, p.Report)
}

// TestConfigRegression judges the real config-change scenario pair: the
// same workload run with 8 shuffle partitions, the default memory
// fraction and broadcasts (after: the baseline) and with 4, 0.05 and no
// broadcasts (before: a run that took 1.35× as long). The run must be
// flagged, with the configuration change and the grown stages as causes
// and no resource or input cause.
func TestConfigRegression(t *testing.T) {
	for _, line := range []string{"3.5.9", "4.3.0"} {
		t.Run(line, func(t *testing.T) {
			good, gs := input(t, "config-change-after", line)
			bad, bs := input(t, "config-change-before", line)
			history := []regress.Sample{gs, gs, gs}
			for i := range history {
				history[i].StartTime = int64(i)
				history[i].WallMs += int64(i-1) * gs.WallMs / 50 // ±2 %: a steady job
			}
			b, ok := regress.BaselineOf(history, regress.DefaultConfig())
			if !ok {
				t.Fatal("no baseline from three runs")
			}
			v := regress.Judge(b, bs, regress.DefaultConfig())
			if !v.Regressed {
				t.Fatalf("got not regressed (ratio %.2f, %.1f deviations), want regressed", v.Ratio, v.Sigmas)
			}
			kinds := map[string]regress.Cause{}
			for _, c := range regress.Explain(b, good, bad) {
				kinds[c.Kind] = c
			}
			if c, ok := kinds[regress.CauseConfig]; !ok || !strings.Contains(c.Detail, "spark.sql.shuffle.partitions 8 → 4") {
				t.Errorf("config cause: got %+v, want spark.sql.shuffle.partitions 8 → 4 named", c)
			}
			if _, ok := kinds[regress.CauseStages]; !ok {
				t.Errorf("got causes %v, want grown stages among them", kinds)
			}
			for _, k := range []string{regress.CauseResources, regress.CauseInput} {
				if c, ok := kinds[k]; ok {
					t.Errorf("%s: got %q, want no such cause", k, c.Detail)
				}
			}
			// The good run against itself is no regression and has no cause
			// but noise.
			if v := regress.Judge(b, gs, regress.DefaultConfig()); v.Regressed {
				t.Errorf("the baseline's own run: got regressed (ratio %.2f)", v.Ratio)
			}
		})
	}
}

// TestInputGrowth checks the input cause against the baseline's median
// input: a run that read three times the median input names it.
func TestInputGrowth(t *testing.T) {
	good, gs := input(t, "config-change-after", "4.3.0")
	var shuffle int64
	for _, s := range good.Result.Stages {
		shuffle += s.ShuffleReadBytes
	}
	if shuffle == 0 {
		t.Fatal("config-change-after shuffled nothing")
	}
	h := []regress.Sample{gs, gs, gs}
	for i := range h {
		h[i].ShuffleBytes = shuffle / 3
		h[i].StartTime = int64(i)
	}
	b, _ := regress.BaselineOf(h, regress.DefaultConfig())
	var got []string
	for _, c := range regress.Explain(b, good, good) {
		got = append(got, c.Kind)
	}
	if len(got) != 1 || got[0] != regress.CauseInput {
		t.Errorf("got causes %v, want only %s", got, regress.CauseInput)
	}
}
