package cost_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/test/scenario"
)

const (
	mib  = int64(1) << 20
	gib  = int64(1) << 30
	hour = int64(3_600_000)
)

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*max(1, math.Abs(want)) }

func attempt(props ...[2]string) *model.Attempt {
	a := &model.Attempt{}
	a.Env.SparkProperties = props
	return a
}

// TestOf checks the hours of hand-built analyses: executors are cores and
// container memory over their lifetimes, the driver its cores and memory
// over the app, and the stages share the executors by task time.
func TestOf(t *testing.T) {
	twoExecs := &analyze.Result{DurationMs: 2 * hour,
		Config:    analyze.Config{ExecutorMemoryBytes: gib, ExecutorOverheadBytes: 384 * mib, DriverMemoryBytes: gib},
		Executors: []analyze.Executor{{ID: "driver"}, {ID: "1", Cores: 2, LifetimeMs: hour}, {ID: "2", Cores: 2, LifetimeMs: hour / 2}},
		Stages: []analyze.Stage{{StageID: 0, JobIDs: []int{0}, TaskTimes: analyze.TaskTimes{TaskTimeMs: 3000}},
			{StageID: 1, JobIDs: []int{0}, TaskTimes: analyze.TaskTimes{TaskTimeMs: 1000}}},
		Jobs: []analyze.Job{{ID: 0}}}
	local := &analyze.Result{DurationMs: hour, CriticalPath: analyze.CriticalPath{MaxCores: 4},
		Config:    analyze.Config{Master: "local[4]", DriverMemoryBytes: 2 * gib},
		Executors: []analyze.Executor{{ID: "driver", Cores: 4, LifetimeMs: hour}},
		Stages:    []analyze.Stage{{StageID: 0, JobIDs: []int{0}, TaskTimes: analyze.TaskTimes{TaskTimeMs: 10}}},
		Jobs:      []analyze.Job{{ID: 0}}}
	for _, tc := range []struct {
		name                    string
		a                       *model.Attempt
		res                     *analyze.Result
		execCore, execGB        float64
		driverCore, driverGB    float64
		stage0Core, perCoreByte float64
	}{
		{"two executors, default driver", attempt(), twoExecs, 3, 1.375 * 1.5, 2, 2 * (1 + 0.375), 2.25, float64(1408*mib) / 2},
		{"driver cores and overhead set", attempt([2]string{"spark.driver.cores", "4"}, [2]string{"spark.driver.memoryOverhead", "1g"}),
			twoExecs, 3, 1.375 * 1.5, 8, 2 * 2, 2.25, float64(1408*mib) / 2},
		{"local mode: the driver holds the cores", attempt(), local, 0, 0, 4, 2.375, 4, float64(2*gib+384*mib) / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cost.Of(tc.a, tc.res)
			for _, x := range []struct {
				what      string
				got, want float64
			}{
				{"executor core-hours", c.Executors.CoreHours, tc.execCore},
				{"executor GB-hours", c.Executors.MemoryGBHours, tc.execGB},
				{"driver core-hours", c.Driver.CoreHours, tc.driverCore},
				{"driver GB-hours", c.Driver.MemoryGBHours, tc.driverGB},
				{"total core-hours", c.Total.CoreHours, tc.execCore + tc.driverCore},
				{"stage 0 core-hours", c.Stages[0].CoreHours, tc.stage0Core},
				{"memory per core", float64(c.MemoryPerCoreBytes), tc.perCoreByte},
			} {
				if !near(x.got, x.want) {
					t.Errorf("%s: got %v, want %v", x.what, x.got, x.want)
				}
			}
			if c.Total.Money != nil {
				t.Errorf("money without prices: got %v, want none", *c.Total.Money)
			}
		})
	}
}

// TestPriceAndFindings checks money at given prices and a finding's
// waste in the same units.
func TestPriceAndFindings(t *testing.T) {
	res := &analyze.Result{DurationMs: hour, Config: analyze.Config{ExecutorMemoryBytes: 3 * gib, ExecutorOverheadBytes: gib, DriverMemoryBytes: gib},
		Executors: []analyze.Executor{{ID: "1", Cores: 4, LifetimeMs: hour}}}
	c := cost.Of(attempt(), res)
	c.AddFindings([]diagnose.Finding{{Rule: "spill", Cost: &diagnose.Cost{CoreMs: 2 * hour}}, {Rule: "data-skew"}})
	c.Price(cost.Prices{CoreHour: 0.05, GBHour: 0.01})
	if len(c.Findings) != 1 {
		t.Fatalf("findings with a cost: got %d, want 1", len(c.Findings))
	}
	f := c.Findings[0]
	// 2 core-hours, each core holding 4 GiB / 4 cores = 1 GiB.
	for _, x := range []struct {
		what      string
		got, want float64
	}{
		{"finding core-hours", f.CoreHours, 2},
		{"finding GB-hours", f.MemoryGBHours, 2},
		{"finding money", *f.Money, 2*0.05 + 2*0.01},
		{"executor money", *c.Executors.Money, 4*0.05 + 4*0.01},
		{"driver money", *c.Driver.Money, 1*0.05 + (1+0.375)*0.01},
	} {
		if !near(x.got, x.want) {
			t.Errorf("%s: got %v, want %v", x.what, x.got, x.want)
		}
	}
	c.Price(cost.Prices{})
	if c.Total.Money != nil || c.Prices != nil {
		t.Errorf("zero prices: money %v prices %v, want none", c.Total.Money, c.Prices)
	}
}

// TestScenarioLogs checks every committed real-Spark log: the executors'
// core-hours are the analysis' executor core time, the stages add up to
// the executors, and the jobs too.
func TestScenarioLogs(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*", "spark-*", "*.zstd"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no scenario logs: %v", err)
	}
	for _, path := range logs {
		d, err := scenario.Diagnose(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		c := cost.Of(d.Attempt, d.Result)
		worker := c.Executors
		if c.Executors.CoreHours == 0 {
			worker = c.Driver
		} else if got, want := c.Executors.CoreHours, float64(d.Result.CoreTimeMs())/3.6e6; !near(got, want) {
			t.Errorf("%s: executor core-hours: got %v, want %v (analysis' core time)", path, got, want)
		}
		var stages, jobs float64
		for _, s := range c.Stages {
			stages += s.CoreHours
		}
		for _, j := range c.Jobs {
			jobs += j.CoreHours
		}
		if len(c.Stages) > 0 && math.Abs(stages-worker.CoreHours) > 1e-6*worker.CoreHours {
			t.Errorf("%s: Σ stage core-hours: got %v, want %v", path, stages, worker.CoreHours)
		}
		if jobs > worker.CoreHours*(1+1e-6) {
			t.Errorf("%s: Σ job core-hours %v above the executors' %v", path, jobs, worker.CoreHours)
		}
	}
}
