package prom

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/model"
)

// scope says which series of a metric exist: one per app, per app and
// phase, per app and stage kind, per executor, per finding group, or one
// for the server itself.
type scope int

const (
	scopeApp scope = iota
	scopePhase
	scopeKind
	scopeExecutor
	scopeFindings
	scopeServer
	scopeTaskHistogram
	scopeJobHistogram
	scopeStream
	scopeRunningJob
	scopeRunningStage
	scopeTasks
	scopePhaseState
	scopeRemoved
	scopeExecutorRemoved
	scopeAllocBound
)

// appLabels name every per-application series.
var appLabels = [...]string{"app_id", "attempt_id"}

// metric is one row of the metric table. Exactly the value function of its
// scope is set.
type metric struct {
	name, help string
	typ        prometheus.ValueType
	scope      scope
	app        func(*App) float64
	phase      func(*App, analyze.Phase) float64
	kind       func(*kindStats) float64
	exec       func(*analyze.Executor) float64
	stream     func(*analyze.StreamingQuery) float64
	job        func(*App, *analyze.Job) float64
	stage      func(*App, *analyze.Stage) float64
	server     func(*serverState) float64
}

func ms(v int64) float64 { return float64(v) / 1000 }

// costOf reads one figure of an app's total cost; NaN (no series) without
// one.
func costOf(f func(cost.Usage) float64) func(*App) float64 {
	return func(a *App) float64 {
		if a.Cost == nil {
			return math.NaN()
		}
		return f(a.Cost.Total)
	}
}

// table lists every metric the collector exports: the one place to read
// what /metrics holds. Per-app values describe a finished analysis, so
// they are gauges even where they sum (a counter would have to keep
// rising across app restarts).
func table() []metric {
	g := prometheus.GaugeValue
	return []metric{
		{name: "spark_app_info", typ: g, scope: scopeApp,
			help: "Application attempts sparkdx reports (running, or finished within the window); labels name, user, spark_version, state, and where the log names them run_source, run_id, run_name, run_task (the orchestrator run and task: Airflow, OpenLineage, Databricks Jobs, Oozie, Dataproc, spark.sparkdx.run) and trace_id (spark.otel.traceparent's).",
			app:  func(*App) float64 { return 1 }},
		{name: "spark_app_start_time_seconds", typ: g, scope: scopeApp,
			help: "Application start, seconds since the epoch.",
			app:  func(a *App) float64 { return ms(a.Result.StartTime) }},
		{name: "spark_app_duration_seconds", typ: g, scope: scopeApp,
			help: "Application wall time so far (to its end; a running app's to now, while its log is under 6 h old).",
			app:  func(a *App) float64 { return ms(a.Result.DurationMs) }},
		{name: "spark_resource_wait_seconds", typ: g, scope: scopeApp,
			help: "Wall time work waited for executors (before the first executor, or with pending tasks and no free slot).",
			app:  func(a *App) float64 { return ms(a.Result.Phases.ResourceWaitMs) }},
		{name: "spark_phase_compute_seconds", typ: g, scope: scopeApp,
			help: "Wall time stages computed on executors.",
			app:  func(a *App) float64 { return ms(a.Result.Phases.ComputeMs) }},
		{name: "spark_phase_io_write_seconds", typ: g, scope: scopeApp,
			help: "Wall time spent writing output (write stages and the driver-side job commit).",
			app:  func(a *App) float64 { return ms(a.Result.Phases.OutputWriteMs) }},
		{name: "spark_phase_driver_only_seconds", typ: g, scope: scopeApp,
			help: "Wall time with no stage running (driver-side work).",
			app:  func(a *App) float64 { return ms(a.Result.Phases.DriverOnlyMs) }},
		{name: "spark_phase_breakdown_ratio", typ: g, scope: scopePhase,
			help:  "Share of the application's wall time in each phase (resource_wait, compute, io_write, driver_only); sums to 1.",
			phase: func(a *App, p analyze.Phase) float64 { return a.Result.Phases.Ratio(p) }},
		{name: "spark_time_to_first_executor_seconds", typ: g, scope: scopeApp,
			help: "Application start to the first executor added.",
			app:  func(a *App) float64 { return ms(a.Result.Phases.FirstExecutorDelayMs) }},
		{name: "spark_critical_path_seconds", typ: g, scope: scopeApp,
			help: "Lower bound of the wall time with unlimited executors (driver time plus the longest stage chain).",
			app:  func(a *App) float64 { return ms(a.Result.CriticalPath.CriticalPathMs) }},
		{name: "spark_ideal_seconds", typ: g, scope: scopeApp,
			help: "Wall time with the recorded cores perfectly used (driver time plus task time over cores).",
			app:  func(a *App) float64 { return ms(a.Result.CriticalPath.IdealMs) }},
		{name: "spark_task_time_seconds", typ: g, scope: scopeApp,
			help: "Sum of the duration of every finished task attempt (the report's headline.taskTimeMs).",
			app:  func(a *App) float64 { return ms(a.Result.Headline.TaskTimeMs) }},
		{name: "spark_tasks", typ: g, scope: scopeTasks,
			help: "Task attempts by how they ended (succeeded, failed, killed, or unfinished: no end in the log); they sum to the attempts launched, the report's headline.tasks."},
		{name: "spark_gc_ratio", typ: g, scope: scopeApp,
			help: "GC time over executor run time, each task's GC time capped at its run time (the report's headline.gcRatio).",
			app:  func(a *App) float64 { return a.Result.Headline.GCShare }},
		{name: "spark_app_exit_code", typ: g, scope: scopeApp,
			help: "The application's exit code from its end event (Spark 4); no series when the log has none.",
			app: func(a *App) float64 {
				if c := a.Result.Headline.ExitCode; c != nil {
					return float64(*c)
				}
				return math.NaN() // not sent: see collectApp
			}},
		{name: "spark_max_cores", typ: g, scope: scopeApp,
			help: "Most executor cores alive at once.",
			app:  func(a *App) float64 { return float64(a.Result.CriticalPath.MaxCores) }},
		{name: "spark_max_executors", typ: g, scope: scopeApp,
			help: "Most executors alive at once.",
			app:  func(a *App) float64 { return float64(a.Result.CriticalPath.MaxExecutors) }},
		{name: "spark_compute_efficiency_ratio", typ: g, scope: scopeApp,
			help: "Core time used: task time over executor core time (executor lifetime x cores), how busy the granted cores were (the report's headline.coreTimeUsedRatio).",
			app:  func(a *App) float64 { return a.Result.Headline.CoreTimeUsed }},
		{name: "spark_wasted_core_seconds", typ: g, scope: scopeApp,
			help: "Executor core time no task used, summed over executors.",
			app: func(a *App) float64 {
				var h float64
				for i := range a.Result.Executors {
					h += a.Result.Executors[i].WastedCoreHours
				}
				return h * 3600
			}},
		// Prometheus' base units (seconds, bytes): core-hours × 3,600 and
		// GiB-hours × 2^30 × 3,600, as promtool's lint requires.
		{name: "spark_app_core_seconds", typ: g, scope: scopeApp,
			help: "Core time the application held, in core-seconds: executors' cores over their lifetimes plus the driver's over the app (core-hours × 3600, docs/cost.md).",
			app:  costOf(func(u cost.Usage) float64 { return u.CoreHours * 3600 })},
		{name: "spark_app_memory_byte_seconds", typ: g, scope: scopeApp,
			help: "Memory the application held, in byte-seconds: executors' containers over their lifetimes plus the driver's over the app (GiB-hours × 2^30 × 3600, docs/cost.md).",
			app:  costOf(func(u cost.Usage) float64 { return u.MemoryGBHours * (1 << 30) * 3600 })},
		{name: "spark_executors", typ: g, scope: scopeApp,
			help: "Executors the application had (the driver not counted).",
			app: func(a *App) float64 {
				n := 0
				for i := range a.Result.Executors {
					if a.Result.Executors[i].ID != "driver" {
						n++
					}
				}
				return float64(n)
			}},
		{name: "spark_app_phase", typ: g, scope: scopePhaseState,
			help: "The phase an application is in now, a state set: 1 for the current phase (resource_wait, compute, io_write, driver_only; ended once it ended), 0 for the others."},
		{name: "spark_executors_alive", typ: g, scope: scopeApp,
			help: "Executors of a running application added and not removed (the driver not counted); 0 once it ended.",
			app:  aliveExecutors},
		{name: "spark_executors_needed", typ: g, scope: scopeApp,
			help: "Executors a running application's active stages could use, what dynamic allocation requests (Spark's maxNumExecutorsNeeded: unfinished tasks of active stages x executorAllocationRatio over tasks per executor, within min/maxExecutors); 0 once it ended.",
			app:  neededExecutors},
		{name: "spark_dynamic_allocation_executors", typ: g, scope: scopeAllocBound,
			help: "An application's dynamic allocation bounds by bound (min, initial, max: spark.dynamicAllocation.*; max only when set); no series without dynamic allocation."},
		{name: "spark_executors_removed", typ: g, scope: scopeRemoved,
			help: "Executors the log removed, by cause (container-memory, jvm-oom, sigterm, preempted, heartbeat, decommission, idle, driver, node-lost, unknown) as sparkdx reads Spark's removal reason."},
		{name: "spark_jobs", typ: g, scope: scopeApp,
			help: "Jobs the application submitted.",
			app:  func(a *App) float64 { return float64(len(a.Result.Jobs)) }},

		{name: "spark_job_duration_seconds", scope: scopeJobHistogram,
			help: "Ended jobs' duration (submission to completion) by status (succeeded, failed); a running application's grows as its jobs end."},
		{name: "spark_stage_task_duration_seconds", scope: scopeTaskHistogram,
			help: "Successful task attempts' duration (launch to finish) by stage kind."},
		{name: "spark_stages", typ: g, scope: scopeKind,
			help: "Stage attempts by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.stages) }},
		{name: "spark_stages_failed", typ: g, scope: scopeKind,
			help: "Failed stage attempts by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.failed) }},
		{name: "spark_stage_task_time_seconds", typ: g, scope: scopeKind,
			help: "Sum of task attempt durations by stage kind.",
			kind: func(k *kindStats) float64 { return k.taskSec }},
		{name: "spark_stage_gc_seconds", typ: g, scope: scopeKind,
			help: "JVM GC time inside tasks by stage kind.",
			kind: func(k *kindStats) float64 { return k.gcSec }},
		{name: "spark_stage_deserialize_seconds", typ: g, scope: scopeKind,
			help: "Task deserialization time on executors by stage kind.",
			kind: func(k *kindStats) float64 { return k.deserSec }},
		{name: "spark_stage_result_serialize_seconds", typ: g, scope: scopeKind,
			help: "Task result serialization time by stage kind.",
			kind: func(k *kindStats) float64 { return k.serSec }},
		{name: "spark_stage_shuffle_fetch_wait_seconds", typ: g, scope: scopeKind,
			help: "Time tasks blocked fetching shuffle blocks by stage kind.",
			kind: func(k *kindStats) float64 { return k.fetchWaitSec }},
		{name: "spark_stage_shuffle_write_seconds", typ: g, scope: scopeKind,
			help: "Time tasks spent writing shuffle files by stage kind.",
			kind: func(k *kindStats) float64 { return k.shuffleWriteSec }},
		{name: "spark_stage_input_bytes", typ: g, scope: scopeKind,
			help: "Bytes read from storage by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.input) }},
		{name: "spark_stage_output_bytes", typ: g, scope: scopeKind,
			help: "Bytes written as output by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.output) }},
		{name: "spark_stage_shuffle_read_bytes", typ: g, scope: scopeKind,
			help: "Shuffle bytes read by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.shRead) }},
		{name: "spark_stage_shuffle_write_bytes", typ: g, scope: scopeKind,
			help: "Shuffle bytes written by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.shWrite) }},
		{name: "spark_stage_memory_spilled_bytes", typ: g, scope: scopeKind,
			help: "Deserialized bytes spilled from memory by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.memSpill) }},
		{name: "spark_stage_disk_spilled_bytes", typ: g, scope: scopeKind,
			help: "Serialized bytes spilled to disk by stage kind.",
			kind: func(k *kindStats) float64 { return float64(k.diskSpill) }},
		{name: "spark_stage_skew_duration_ratio", typ: g, scope: scopeKind,
			help: "Largest max-over-median task duration of any stage of the kind.",
			kind: func(k *kindStats) float64 { return k.maxSkewDuration }},
		{name: "spark_stage_skew_bytes_ratio", typ: g, scope: scopeKind,
			help: "Largest max-over-median task input of any stage of the kind.",
			kind: func(k *kindStats) float64 { return k.maxSkewBytes }},

		{name: "spark_executor_peak_jvm_heap_bytes", typ: g, scope: scopeExecutor,
			help: "Executor's peak JVM heap use from the log's executor metrics.",
			exec: func(e *analyze.Executor) float64 { return float64(e.PeakJVMHeapBytes) }},
		{name: "spark_executor_peak_jvm_offheap_bytes", typ: g, scope: scopeExecutor,
			help: "Executor's peak JVM off-heap use.",
			exec: func(e *analyze.Executor) float64 { return float64(e.PeakJVMOffHeapBytes) }},
		{name: "spark_executor_peak_python_rss_bytes", typ: g, scope: scopeExecutor,
			help: "Executor's peak Python worker RSS (needs spark.executor.processTreeMetrics.enabled).",
			exec: func(e *analyze.Executor) float64 { return float64(e.PeakPythonRSSBytes) }},
		{name: "spark_executor_peak_jvm_rss_bytes", typ: g, scope: scopeExecutor,
			help: "Executor's peak JVM process RSS (needs spark.executor.processTreeMetrics.enabled).",
			exec: func(e *analyze.Executor) float64 { return float64(e.PeakJVMRSSBytes) }},
		{name: "spark_executor_cores", typ: g, scope: scopeExecutor,
			help: "Cores the executor offered.",
			exec: func(e *analyze.Executor) float64 { return float64(e.Cores) }},
		{name: "spark_executor_task_time_seconds", typ: g, scope: scopeExecutor,
			help: "Sum of task durations on the executor.",
			exec: func(e *analyze.Executor) float64 { return ms(e.BusyMs) }},
		{name: "spark_executor_gc_seconds", typ: g, scope: scopeExecutor,
			help: "JVM GC time inside tasks on the executor.",
			exec: func(e *analyze.Executor) float64 { return ms(e.GCTimeMs) }},
		{name: "spark_executor_utilization_ratio", typ: g, scope: scopeExecutor,
			help: "Task time over the executor's core time.",
			exec: func(e *analyze.Executor) float64 { return e.Utilization }},
		{name: "spark_executor_failed_tasks", typ: g, scope: scopeExecutor,
			help: "Task attempts that failed on the executor.",
			exec: func(e *analyze.Executor) float64 { return float64(e.FailedTasks) }},

		{name: "spark_executor_added_time_seconds", typ: g, scope: scopeExecutor,
			help: "When the executor was added, seconds since the epoch.",
			exec: func(e *analyze.Executor) float64 {
				if e.AddedTime <= 0 { // the driver, or a log without the event
					return math.NaN()
				}
				return ms(e.AddedTime)
			}},
		{name: "spark_executor_removed_time_seconds", typ: g, scope: scopeExecutorRemoved,
			help: "When the log removed the executor, seconds since the epoch, with the cause of its removal (spark_executors_removed's causes); no series while it lives.",
			exec: func(e *analyze.Executor) float64 { return ms(e.RemovedTime) }},

		// Jobs and stages still running in a running application, for
		// alerts on work that runs longer than it should (only running
		// ones: bounded by what an app runs at once).
		{name: "spark_job_running_seconds", typ: g, scope: scopeRunningJob,
			help: "How long a job of a running application has been running (since its submission).",
			job:  func(a *App, j *analyze.Job) float64 { return ms(model.Span(j.SubmissionTime, a.Result.EndTime)) }},
		{name: "spark_stage_running_seconds", typ: g, scope: scopeRunningStage,
			help:  "How long an active stage of a running application has been running (since its submission).",
			stage: func(a *App, s *analyze.Stage) float64 { return ms(model.Span(s.SubmissionTime, a.Result.EndTime)) }},
		// Structured Streaming: each query's last micro-batch, as Spark's
		// own streaming metrics source reports it (lastProgress).
		{name: "spark_streaming_batches", typ: g, scope: scopeStream,
			help:   "Micro-batches a streaming query has run (its latest run).",
			stream: func(q *analyze.StreamingQuery) float64 { return float64(q.Batches) }},
		{name: "spark_streaming_batch_duration_seconds", typ: g, scope: scopeStream,
			help:   "Duration of a streaming query's last micro-batch.",
			stream: func(q *analyze.StreamingQuery) float64 { return ms(q.Last.BatchDurationMs) }},
		{name: "spark_streaming_input_rows_per_second", typ: g, scope: scopeStream,
			help:   "Rows per second that arrived for a streaming query's last micro-batch (Spark's inputRowsPerSecond).",
			stream: func(q *analyze.StreamingQuery) float64 { return q.Last.InputRowsPerSecond }},
		{name: "spark_streaming_processed_rows_per_second", typ: g, scope: scopeStream,
			help:   "Rows per second a streaming query's last micro-batch processed (Spark's processedRowsPerSecond).",
			stream: func(q *analyze.StreamingQuery) float64 { return q.Last.ProcessedRowsPerSecond }},
		{name: "spark_streaming_state_rows", typ: g, scope: scopeStream,
			help:   "Rows held in a streaming query's state stores after its last micro-batch.",
			stream: func(q *analyze.StreamingQuery) float64 { return float64(q.Last.StateRows) }},
		{name: "spark_streaming_state_memory_bytes", typ: g, scope: scopeStream,
			help:   "Memory used by a streaming query's state stores after its last micro-batch.",
			stream: func(q *analyze.StreamingQuery) float64 { return float64(q.Last.StateMemoryBytes) }},
		{name: "spark_findings", typ: g, scope: scopeFindings,
			help: "Findings of sparkdx's diagnosis rules by rule and severity."},

		{name: "sparkdx_serve_ingest_lag_seconds", typ: g, scope: scopeServer,
			help:   "Age of the oldest event-log change the server has not read yet.",
			server: func(h *serverState) float64 { return h.IngestLag.Seconds() }},
		{name: "sparkdx_serve_queue_depth", typ: g, scope: scopeServer,
			help:   "Event logs waiting to be read.",
			server: func(h *serverState) float64 { return float64(h.QueueDepth) }},
		{name: "sparkdx_serve_parse_errors_total", typ: prometheus.CounterValue, scope: scopeServer,
			help:   "Event-log lines the server could not parse.",
			server: func(h *serverState) float64 { return float64(h.ParseErrors) }},
		{name: "sparkdx_serve_logs", typ: g, scope: scopeServer,
			help:   "Event logs the server knows.",
			server: func(h *serverState) float64 { return float64(h.Logs) }},
		{name: "sparkdx_serve_apps_dropped", typ: g, scope: scopeServer,
			help:   "Finished applications left out of /metrics: ended before the window, or beyond the most recently ended ones kept.",
			server: func(h *serverState) float64 { return float64(h.dropped) }},
		{name: "sparkdx_serve_apps_reported", typ: g, scope: scopeServer,
			help:   "Applications /metrics reports (running, or finished within the window).",
			server: func(h *serverState) float64 { return float64(h.reported) }},
	}
}
