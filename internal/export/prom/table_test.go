package prom

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

func TestComputeEfficiency(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    analyze.Result
		want float64
	}{
		{"executors, driver left out", analyze.Result{Executors: []analyze.Executor{
			{ID: "driver", Cores: 4, BusyMs: 0, LifetimeMs: 1000},
			{ID: "1", Cores: 2, BusyMs: 500, LifetimeMs: 1000},
			{ID: "2", Cores: 2, BusyMs: 1500, LifetimeMs: 1000}}}, 0.5},
		{"local mode: the driver is the executor", analyze.Result{Executors: []analyze.Executor{
			{ID: "driver", Cores: 4, BusyMs: 1000, LifetimeMs: 1000}}}, 0.25},
		{"no core counts: tasks over max cores", analyze.Result{DurationMs: 1000,
			CriticalPath: analyze.CriticalPath{MaxCores: 2, TaskTimeMs: 500},
			Executors:    []analyze.Executor{{ID: "driver", BusyMs: 500, LifetimeMs: 1000}}}, 0.25},
		{"nothing ran", analyze.Result{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := computeEfficiency(&App{Result: &tc.r}); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
