package otlp

import (
	"context"
	"slices"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
)

// Span names: low-cardinality kinds; the Spark ids are attributes.
const (
	spanApp   = "spark.application"
	spanJob   = "spark.job"
	spanStage = "spark.stage"
	spanTask  = "spark.task"
)

// Spark properties holding the caller's context.
const (
	propTraceParent   = "spark.otel.traceparent"
	propTraceState    = "spark.otel.tracestate"
	propOLNamespace   = "spark.openlineage.parentJobNamespace"
	propOLJobName     = "spark.openlineage.parentJobName"
	propOLRunID       = "spark.openlineage.parentRunId"
	propOLRootRunID   = "spark.openlineage.rootParentRunId"
	propOLRootJobName = "spark.openlineage.rootParentJobName"
)

func at(ms int64) time.Time { return time.UnixMilli(ms) }

// remoteParent reads a W3C traceparent (and tracestate); ok is false when
// it is absent or malformed.
func remoteParent(traceParent, traceState string) (trace.SpanContext, bool) {
	if traceParent == "" {
		return trace.SpanContext{}, false
	}
	carrier := propagation.MapCarrier{"traceparent": traceParent}
	if traceState != "" {
		carrier["tracestate"] = traceState
	}
	sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
	return sc, sc.IsValid()
}

// appTrace builds the spans of one attempt on one tracer, skipping what
// sent says was exported already and recording what it ends.
type appTrace struct {
	tracer    trace.Tracer
	a         *model.Attempt
	r         *analyze.Result
	taskRatio float64
	sent      map[string]bool

	props   map[string]string
	appSC   trace.SpanContext // the application span's context (exists or not)
	parent  trace.SpanContext // the caller's context from spark.otel.traceparent
	stages  map[[2]int]*analyze.Stage
	jobSpan map[int]trace.SpanContext
}

func newAppTrace(tr trace.Tracer, a *model.Attempt, r *analyze.Result, ratio, taskRatio float64, sent map[string]bool) *appTrace {
	t := &appTrace{tracer: tr, a: a, r: r, taskRatio: taskRatio, sent: sent, props: map[string]string{},
		stages: map[[2]int]*analyze.Stage{}, jobSpan: map[int]trace.SpanContext{}}
	for _, p := range a.Env.SparkProperties {
		t.props[p[0]] = p[1]
	}
	for i := range r.Stages {
		s := &r.Stages[i]
		t.stages[[2]int{s.StageID, s.AttemptID}] = s
	}
	tid := traceIDFor(a.AppID, a.AttemptID)
	flags := trace.TraceFlags(0)
	if sampled(ratio, tid.String()) {
		flags = trace.FlagsSampled
	}
	if p, ok := remoteParent(t.props[propTraceParent], t.props[propTraceState]); ok {
		t.parent, tid, flags = p, p.TraceID(), p.TraceFlags()
	}
	t.appSC = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, TraceFlags: flags,
		SpanID: spanIDFor(a.AppID, a.AttemptID, "app")})
	for _, j := range a.Jobs {
		t.jobSpan[j.ID] = t.jobContext(j)
	}
	return t
}

// jobContext is the context a job's span will have: in the application's
// trace, or in the caller's when the job carries its own traceparent.
func (t *appTrace) jobContext(j *model.Job) trace.SpanContext {
	cfg := trace.SpanContextConfig{TraceID: t.appSC.TraceID(), TraceFlags: t.appSC.TraceFlags(),
		SpanID: spanIDFor(t.a.AppID, t.a.AttemptID, "job", strconv.Itoa(j.ID))}
	if p, ok := t.jobParent(j); ok {
		cfg.TraceID, cfg.TraceFlags = p.TraceID(), p.TraceFlags()
	}
	return trace.NewSpanContext(cfg)
}

// jobParent is the caller's span that owns job j, if any: the job's own
// traceparent, unless it is the application's (Spark copies the
// submit-time spark.otel.traceparent into every SQL job's properties). A
// span of the application's own trace counts: an Airflow task that
// submitted the application can own one of its jobs through a child span.
func (t *appTrace) jobParent(j *model.Job) (trace.SpanContext, bool) {
	p, ok := remoteParent(j.TraceParent, j.TraceState)
	if !ok || p.TraceID() == t.parent.TraceID() && p.SpanID() == t.parent.SpanID() {
		return trace.SpanContext{}, false
	}
	return p, true
}

// start begins a span with a fixed id under parent.
func (t *appTrace) start(parent, self trace.SpanContext, name string, ms int64, opts ...trace.SpanStartOption) trace.Span {
	ctx := context.Background()
	if parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, parent)
	}
	ctx = withSelf(ctx, self)
	opts = append(opts, trace.WithTimestamp(at(ms)))
	_, sp := t.tracer.Start(ctx, name, opts...)
	return sp
}

// export starts and ends every span that has ended and was not sent yet;
// the application span only once the application ended.
func (t *appTrace) export() {
	for _, s := range t.a.Stages {
		t.stage(s)
	}
	for _, j := range t.a.Jobs {
		t.job(j)
	}
	if t.r.Completed && !t.sent["app"] {
		t.app()
		t.sent["app"] = true
	}
}

func (t *appTrace) app() {
	a, r := t.a, t.r
	attrs := []attribute.KeyValue{
		attribute.String("spark.app.id", a.AppID), attribute.String("spark.app.attempt_id", a.AttemptID),
		attribute.String("spark.app.name", a.AppName), attribute.String("spark.user", a.SparkUser),
		attribute.String("spark.version", a.SparkVersion), attribute.String("spark.master", r.Config.Master),
		attribute.Int64("spark.app.duration_ms", r.DurationMs),
		attribute.Int64("spark.phase.resource_wait_ms", r.Phases.ResourceWaitMs),
		attribute.Int64("spark.phase.compute_ms", r.Phases.ComputeMs),
		attribute.Int64("spark.phase.io_write_ms", r.Phases.OutputWriteMs),
		attribute.Int64("spark.phase.driver_only_ms", r.Phases.DriverOnlyMs),
		attribute.Int64("spark.time_to_first_executor_ms", r.Phases.FirstExecutorDelayMs),
		attribute.Int64("spark.critical_path_ms", r.CriticalPath.CriticalPathMs),
		attribute.Int("spark.jobs", len(a.Jobs)), attribute.Int("spark.stages", len(a.Stages)),
		attribute.Int("spark.executors.max", r.CriticalPath.MaxExecutors),
	}
	for _, kv := range [][2]string{
		{propOLNamespace, "openlineage.parent.job.namespace"}, {propOLJobName, "openlineage.parent.job.name"},
		{propOLRunID, "openlineage.parent.run.id"}, {propOLRootJobName, "openlineage.root_parent.job.name"},
		{propOLRootRunID, "openlineage.root_parent.run.id"},
	} {
		if v := t.props[kv[0]]; v != "" {
			attrs = append(attrs, attribute.String(kv[1], v))
		}
	}
	if a.ExitCode != nil {
		attrs = append(attrs, attribute.Int("spark.app.exit_code", *a.ExitCode))
	}
	sp := t.start(t.parent, t.appSC, spanApp, r.StartTime, trace.WithAttributes(attrs...),
		trace.WithSpanKind(trace.SpanKindServer))
	for i := range r.Executors {
		t.executorEvents(sp, &r.Executors[i])
	}
	if a.ExitCode != nil && *a.ExitCode != 0 {
		sp.SetStatus(codes.Error, "exit code "+strconv.Itoa(*a.ExitCode))
	}
	sp.End(trace.WithTimestamp(at(r.EndTime)))
}

func (t *appTrace) executorEvents(sp trace.Span, e *analyze.Executor) {
	if e.ID == "driver" {
		return
	}
	base := []attribute.KeyValue{attribute.String("spark.executor.id", e.ID), attribute.String("host.name", e.Host)}
	if e.AddedTime > 0 {
		sp.AddEvent("executor added", trace.WithTimestamp(at(e.AddedTime)),
			trace.WithAttributes(append(base, attribute.Int("spark.executor.cores", e.Cores))...))
	}
	if e.RemovedTime > 0 {
		attrs := append(base, attribute.String("spark.executor.removed_reason", e.RemovedReason),
			attribute.String("spark.executor.loss_cause", string(e.Loss.Cause)))
		if e.Loss.ExitCode >= 0 {
			attrs = append(attrs, attribute.Int("spark.executor.exit_code", e.Loss.ExitCode))
		}
		if e.Loss.FailedTasks > 0 {
			attrs = append(attrs, attribute.Int("spark.executor.failed_tasks", e.Loss.FailedTasks))
		}
		sp.AddEvent("executor removed", trace.WithTimestamp(at(e.RemovedTime)), trace.WithAttributes(attrs...))
	}
}

func (t *appTrace) job(j *model.Job) {
	key := "job/" + strconv.Itoa(j.ID)
	start, end := t.jobTimes(j)
	if t.sent[key] || start == model.NoTime || end == model.NoTime {
		return
	}
	t.sent[key] = true
	self := t.jobSpan[j.ID]
	parent := t.appSC
	var opts []trace.SpanStartOption
	if p, ok := t.jobParent(j); ok {
		// The caller's operation owns this job: parent it there, and
		// keep the way back to the application span as a link.
		parent = p
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: t.appSC,
			Attributes: []attribute.KeyValue{attribute.String("spark.link", "application")}}))
	}
	attrs := []attribute.KeyValue{attribute.String("spark.app.id", t.a.AppID), attribute.Int("spark.job.id", j.ID),
		attribute.String("spark.job.status", j.Status), attribute.Int("spark.job.stages", len(j.StageIDs)),
		attribute.Int("spark.job.tasks", j.NumTasks), attribute.Int("spark.job.failed_tasks", j.FailedTasks)}
	if j.HasJobGroup {
		attrs = append(attrs, attribute.String("spark.job.group", j.JobGroup))
	}
	if j.HasDescription {
		attrs = append(attrs, attribute.String("spark.job.description", j.Description))
	}
	if j.Name != "" {
		attrs = append(attrs, attribute.String("spark.job.name", j.Name))
	}
	if len(j.JobTags) > 0 {
		attrs = append(attrs, attribute.StringSlice("spark.job.tags", j.JobTags))
	}
	if j.SQLExecutionID >= 0 {
		attrs = append(attrs, attribute.Int64("spark.sql.execution.id", j.SQLExecutionID))
	}
	sp := t.start(parent, self, spanJob, start, append(opts, trace.WithAttributes(attrs...))...)
	if j.Status == model.JobFailed {
		sp.SetStatus(codes.Error, "job failed")
	}
	sp.End(trace.WithTimestamp(at(end)))
}

// jobTimes are a job's start and end; logs of Spark before 1.3 carry no
// job times, so its stages' times stand in.
func (t *appTrace) jobTimes(j *model.Job) (start, end int64) {
	start, end = j.SubmissionTime, j.CompletionTime
	if start != model.NoTime && end != model.NoTime {
		return start, end
	}
	if j.Status == model.JobRunning {
		return start, model.NoTime
	}
	var first, last int64 = model.NoTime, model.NoTime
	for _, s := range t.a.Stages {
		if !slices.Contains(j.StageIDs, s.StageID) {
			continue
		}
		if s.SubmissionTime != model.NoTime && (first == model.NoTime || s.SubmissionTime < first) {
			first = s.SubmissionTime
		}
		last = max(last, s.CompletionTime)
	}
	if start == model.NoTime {
		start = first
	}
	if end == model.NoTime {
		end = last
	}
	return start, end
}

func (t *appTrace) stageParent(s *model.StageAttempt) trace.SpanContext {
	for _, id := range s.JobIDs {
		if sc, ok := t.jobSpan[id]; ok {
			return sc
		}
	}
	return t.appSC
}

func (t *appTrace) stage(s *model.StageAttempt) {
	key := "stage/" + strconv.Itoa(s.StageID) + "." + strconv.Itoa(s.AttemptID)
	if t.sent[key] || s.CompletionTime == model.NoTime {
		return
	}
	start := s.SubmissionTime
	if start == model.NoTime {
		start = s.FirstLaunchTime
	}
	if start == model.NoTime {
		return // a skipped stage never ran
	}
	t.sent[key] = true
	parent := t.stageParent(s)
	self := trace.NewSpanContext(trace.SpanContextConfig{TraceID: parent.TraceID(), TraceFlags: parent.TraceFlags(),
		SpanID: spanIDFor(t.a.AppID, t.a.AttemptID, "stage", strconv.Itoa(s.StageID), strconv.Itoa(s.AttemptID))})
	attrs := []attribute.KeyValue{attribute.String("spark.app.id", t.a.AppID),
		attribute.Int("spark.stage.id", s.StageID), attribute.Int("spark.stage.attempt_id", s.AttemptID),
		attribute.String("spark.stage.name", s.Name), attribute.String("spark.stage.status", s.Status),
		attribute.Int("spark.stage.tasks", s.NumTasks), attribute.IntSlice("spark.stage.job_ids", s.JobIDs)}
	if st := t.stages[[2]int{s.StageID, s.AttemptID}]; st != nil {
		kind := "compute"
		if st.IsWrite {
			kind = "write"
		}
		attrs = append(attrs, attribute.String("spark.stage.kind", kind),
			attribute.Int64("spark.stage.task_duration_p50_ms", st.TaskDurationMs.P50),
			attribute.Int64("spark.stage.task_duration_p95_ms", st.TaskDurationMs.P95),
			attribute.Int64("spark.stage.task_duration_max_ms", st.TaskDurationMs.Max),
			attribute.Int64("spark.stage.gc_time_ms", st.GCTimeMs),
			attribute.Int64("spark.stage.input_bytes", st.InputBytes),
			attribute.Int64("spark.stage.output_bytes", st.OutputBytes),
			attribute.Int64("spark.stage.shuffle_read_bytes", st.ShuffleReadBytes),
			attribute.Int64("spark.stage.shuffle_write_bytes", st.ShuffleWriteBytes),
			attribute.Int64("spark.stage.memory_spilled_bytes", st.MemorySpilledBytes),
			attribute.Int64("spark.stage.disk_spilled_bytes", st.DiskSpilledBytes),
			attribute.Float64("spark.stage.skew_duration_ratio", st.SkewDuration),
			attribute.Int("spark.stage.failed_tasks", st.Failed))
	}
	sp := t.start(parent, self, spanStage, start, trace.WithAttributes(attrs...))
	for _, task := range s.Tasks {
		t.task(self, s, task)
	}
	if s.Status == model.StageFailed {
		sp.AddEvent("exception", trace.WithTimestamp(at(s.CompletionTime)), trace.WithAttributes(
			attribute.String("exception.type", "StageFailure"), attribute.String("exception.message", s.FailureReason)))
		sp.SetStatus(codes.Error, firstLine(s.FailureReason))
	}
	sp.End(trace.WithTimestamp(at(s.CompletionTime)))
}

// task exports one finished attempt: every failed one, and a deterministic
// TaskSamplingRatio share of the others.
func (t *appTrace) task(parent trace.SpanContext, s *model.StageAttempt, k *model.Task) {
	if k.FinishTime == 0 || k.LaunchTime <= 0 {
		return
	}
	id := strconv.FormatInt(k.TaskID, 10)
	if !k.Failed && !sampled(t.taskRatio, "task", t.a.AppID, t.a.AttemptID, id) {
		return
	}
	self := trace.NewSpanContext(trace.SpanContextConfig{TraceID: parent.TraceID(), TraceFlags: parent.TraceFlags(),
		SpanID: spanIDFor(t.a.AppID, t.a.AttemptID, "task", id)})
	attrs := []attribute.KeyValue{attribute.Int64("spark.task.id", k.TaskID), attribute.Int("spark.task.index", int(k.Index)),
		attribute.Int("spark.task.attempt", int(k.Attempt)), attribute.Int("spark.stage.id", s.StageID),
		attribute.String("spark.executor.id", k.ExecutorID), attribute.String("host.name", k.Host),
		attribute.String("spark.task.status", k.Status()), attribute.String("spark.task.locality", k.Locality),
		attribute.Bool("spark.task.speculative", k.Speculative)}
	if k.HasMetrics {
		m := k.Metrics()
		attrs = append(attrs, attribute.Int64("spark.task.run_time_ms", m.ExecutorRunTime),
			attribute.Int64("spark.task.gc_time_ms", m.JvmGcTime),
			attribute.Int64("spark.task.input_bytes", m.InputBytesRead),
			attribute.Int64("spark.task.output_bytes", m.OutputBytesWritten),
			attribute.Int64("spark.task.memory_spilled_bytes", m.MemoryBytesSpilled))
	}
	sp := t.start(parent, self, spanTask, k.LaunchTime, trace.WithAttributes(attrs...))
	if k.Failed {
		ev := []attribute.KeyValue{attribute.String("spark.task.end_reason", k.EndReason)}
		switch {
		case k.Loss() != nil:
			ev = append(ev, attribute.String("spark.executor.id", k.Loss().ExecutorID),
				attribute.Bool("spark.executor.loss_caused_by_app", k.Loss().CausedByApp),
				attribute.String("exception.message", firstLine(k.Loss().Reason)))
		case k.Fetch() != nil:
			ev = append(ev, attribute.String("spark.shuffle.fetch.executor_id", k.Fetch().ExecutorID),
				attribute.Int64("spark.shuffle.id", k.Fetch().ShuffleID),
				attribute.String("exception.message", firstLine(k.Fetch().Message)))
		default:
			ev = append(ev, attribute.String("exception.message", firstLine(k.ErrorMessage())))
		}
		sp.AddEvent("task failed", trace.WithTimestamp(at(k.FinishTime)), trace.WithAttributes(ev...))
		sp.SetStatus(codes.Error, k.EndReason)
	}
	sp.End(trace.WithTimestamp(at(k.FinishTime)))
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
