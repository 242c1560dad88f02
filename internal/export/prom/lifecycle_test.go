package prom

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// series renders a family's series as "label=value,… value", sorted, with
// app_id and attempt_id left out: one line per series to compare.
func series(f *dto.MetricFamily) []string {
	var out []string
	for _, m := range f.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			if l.GetName() != "app_id" && l.GetName() != "attempt_id" {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
		}
		out = append(out, fmt.Sprintf("%s %g", strings.Join(ls, ","), m.GetGauge().GetValue()))
	}
	slices.Sort(out)
	return out
}

// The lifecycle, phase and allocation series on real Spark logs: a YARN
// application with dynamic allocation that released six executors idle
// (min 1, initialExecutors 3 but spark.executor.instances 10, max 900), a
// finished streaming query, and an application still running with 16
// tasks of an active stage unfinished on one 2-core executor.
func TestLifecycleSeries(t *testing.T) {
	for _, tc := range []struct {
		log    string
		metric string
		want   []string
	}{
		{"application_1628109047826_1317105", "spark_dynamic_allocation_executors", []string{"bound=initial 10", "bound=max 900", "bound=min 1"}},
		{"application_1628109047826_1317105", "spark_executors_removed", []string{"cause=idle 6"}},
		{"application_1628109047826_1317105", "spark_app_phase", []string{"phase=compute 0", "phase=driver_only 0", "phase=ended 1", "phase=io_write 0", "phase=resource_wait 0"}},
		{"application_1628109047826_1317105", "spark_executors_alive", []string{" 0"}},
		{"scenario:streaming/spark-4.3.0", "spark_dynamic_allocation_executors", nil},
		{"scenario:streaming/spark-4.3.0", "spark_executors_removed", nil},
		{"scenario:streaming/spark-4.3.0", "spark_executors_needed", []string{" 0"}},
		{"running:scenario:incomplete-app/spark-3.5.9", "spark_app_phase", []string{"phase=compute 1", "phase=driver_only 0", "phase=ended 0", "phase=io_write 0", "phase=resource_wait 0"}},
		{"running:scenario:incomplete-app/spark-3.5.9", "spark_executors_alive", []string{" 1"}},
		{"running:scenario:incomplete-app/spark-3.5.9", "spark_executors_needed", []string{" 8"}},
		{"running:scenario:incomplete-app/spark-3.5.9", "spark_executor_removed_time_seconds", nil},
	} {
		t.Run(tc.log+" "+tc.metric, func(t *testing.T) {
			c, err := NewCollector(&fakeSource{apps: loadApps(t, tc.log)}, goldenConfig())
			if err != nil {
				t.Fatal(err)
			}
			if got := series(parse(t, scrape(t, c))[tc.metric]); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Each removed executor has its removal time with its cause; every
// executor the log added has its added time, the driver too.
func TestExecutorLifecycle(t *testing.T) {
	apps := loadApps(t, "application_1628109047826_1317105")
	c, err := NewCollector(&fakeSource{apps: apps}, goldenConfig())
	if err != nil {
		t.Fatal(err)
	}
	fams := parse(t, scrape(t, c))
	removedAt := map[string]float64{}
	for _, m := range fams["spark_executor_removed_time_seconds"].GetMetric() {
		var id string
		for _, l := range m.GetLabel() {
			if l.GetName() == "executor_id" {
				id = l.GetValue()
			}
		}
		removedAt[id] = m.GetGauge().GetValue()
	}
	for _, e := range apps[0].Result.Executors {
		got, ok := removedAt[e.ID]
		switch {
		case e.ID != "driver" && e.RemovedTime > 0 && (!ok || got != float64(e.RemovedTime)/1000):
			t.Errorf("executor %s: got removal time %v (%v), want %d ms", e.ID, got, ok, e.RemovedTime)
		case e.RemovedTime <= 0 && ok:
			t.Errorf("executor %s: got removal time %v, want none (not removed)", e.ID, got)
		}
	}
	if got, want := len(fams["spark_executor_added_time_seconds"].GetMetric()), len(apps[0].Result.Executors); got != want {
		t.Errorf("got %d added-time series, want %d", got, want)
	}
}

// The orchestrator run and the trace become spark_app_info's labels; a
// traceparent that is not one leaves trace_id out.
func TestContextLabels(t *testing.T) {
	apps := loadApps(t, "local-1430917381534")
	apps[0].Context = Context{RunSource: "openlineage-root", RunID: "0193-run", RunName: "airflow/etl", RunTask: "etl.load",
		TraceID: traceID("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")}
	c, err := NewCollector(&fakeSource{apps: apps}, goldenConfig())
	if err != nil {
		t.Fatal(err)
	}
	got := series(parse(t, scrape(t, c))["spark_app_info"])
	want := []string{"name=Spark shell,run_id=0193-run,run_name=airflow/etl,run_source=openlineage-root,run_task=etl.load," +
		"spark_version=1.4.0-SNAPSHOT,state=finished,trace_id=4bf92f3577b34da6a3ce929d0e0e4736,user=irashid 1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTraceID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736"},
		{" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 ", "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", ""},
		{"00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01", ""},
		{"secret=hunter2", ""},
		{"", ""},
	} {
		if got := traceID(tc.in); got != tc.want {
			t.Errorf("traceID(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAllocOf(t *testing.T) {
	for _, tc := range []struct {
		props [][2]string
		want  Alloc
	}{
		{nil, Alloc{TaskCPUs: 1, Ratio: 1}},
		{[][2]string{{"spark.dynamicAllocation.minExecutors", "2"}, {"spark.task.cpus", "2"}, {"spark.dynamicAllocation.executorAllocationRatio", "0.5"}},
			Alloc{Min: 2, TaskCPUs: 2, Ratio: 0.5}},
		{[][2]string{{"spark.dynamicAllocation.minExecutors", "-1"}, {"spark.task.cpus", "0"}, {"spark.dynamicAllocation.executorAllocationRatio", "7"}},
			Alloc{TaskCPUs: 1, Ratio: 1}},
	} {
		if got := allocOf(tc.props); got != tc.want {
			t.Errorf("allocOf(%v): got %+v, want %+v", tc.props, got, tc.want)
		}
	}
}

func TestCurrentPhase(t *testing.T) {
	iv := func(p analyze.Phase) []analyze.Interval {
		return []analyze.Interval{{Start: 0, End: 10, Phase: analyze.PhaseCompute}, {Start: 10, End: 20, Phase: p}}
	}
	for _, tc := range []struct {
		name string
		r    analyze.Result
		want string
	}{
		{"running, writing", analyze.Result{Timeline: iv(analyze.PhaseOutputWrite)}, "io_write"},
		{"running, driver only", analyze.Result{Timeline: iv(analyze.PhaseDriverOnly)}, "driver_only"},
		{"running, no timeline yet", analyze.Result{}, "resource_wait"},
		{"ended", analyze.Result{Completed: true, Timeline: iv(analyze.PhaseCompute)}, "ended"},
	} {
		if got := currentPhase(&App{Result: &tc.r}); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
