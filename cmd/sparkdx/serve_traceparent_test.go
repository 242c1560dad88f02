package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestServeTraceContextFromCaller runs testdata/trace_caller.py, a Python
// program with the OpenTelemetry SDK standing in for an Airflow task,
// against real Spark: as a Spark Connect client of a real Connect server
// (spark.conf.set("spark.otel.traceparent", …) and spark.addTag("traceparent=…"))
// and as the caller of a classic spark-submit with --conf
// spark.otel.traceparent (whose program tags a job with a child span's
// context). serve then reads both event logs and exports them to a real
// collector: each job's span must have the caller's span of its case as
// parent, the application of the submit its task's span, and a job the
// caller gave no context (before, after, beside) the application span.
// With -update the run's logs and the caller's output become the fixture
// of internal/export/otlp's TestCallerTraceParents.
func TestServeTraceContextFromCaller(t *testing.T) {
	lines := sparktest.SparkLines(t)
	// The newest line: its virtualenv holds the Connect client and the
	// OpenTelemetry SDK (.ci/spark/4.3.0.txt).
	line := lines[len(lines)-1]
	col := sparktest.StartCollector(t, sparktest.CollectorOptions{})
	dir := t.TempDir()
	logs := filepath.Join(dir, "events")

	// Spark 4's own event-log defaults (rolling, zstd) for the server.
	srv := sparktest.StartConnectServer(t, line, "local[2]", dir,
		map[string]string{"spark.eventLog.rolling.enabled": "", "spark.eventLog.compress": ""})
	cases := runTraceCaller(t, line, dir, "connect", srv.URL)
	srv.Stop(t)

	submit := []string{filepath.Join(line.Home, "bin", "spark-submit"), "--master", "local[1]"}
	conf := sparktest.DefaultConf(t, logs)
	delete(conf, "spark.eventLog.rolling.enabled")
	delete(conf, "spark.eventLog.compress")
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		submit = append(submit, "--conf", k+"="+conf[k])
	}
	program, err := filepath.Abs("testdata/trace_job.py")
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(cases, runTraceCaller(t, line, dir, append(append([]string{"submit"}, submit...), program)...))
	for _, c := range []string{"none", "conf", "tag", "after", "submit", "submit-tag"} {
		if _, ok := cases[c]; !ok {
			t.Fatalf("the caller printed no traceparent for case %q (got %v)", c, cases)
		}
	}

	if *update {
		writeTraceFixture(t, logs, cases)
	}

	s := runServeInProcess(t, "--event-logs", logs, "--data", t.TempDir(), "--otlp-endpoint", "http://"+col.GRPC)
	s.waitIdle(t)
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, s.logs)
	}
	col.Stop(t)
	checkCallerTraces(t, col.Spans(t), cases)
}

// traceFixture holds the event logs of the last live run and what its
// caller printed, for internal/export/otlp's TestCallerTraceParents.
const traceFixture = "../../internal/export/otlp/testdata/traceparent"

// writeTraceFixture replaces traceFixture with the logs in dir (rolling
// directories, as Spark 4 writes them) and cases.json.
func writeTraceFixture(t *testing.T, dir string, cases map[string]string) {
	t.Helper()
	if err := os.RemoveAll(traceFixture); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(traceFixture, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(traceFixture, "cases.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runTraceCaller runs testdata/trace_caller.py with args and returns what
// it printed: case → traceparent ("-" for none).
func runTraceCaller(t *testing.T, line sparktest.SparkLine, dir string, args ...string) map[string]string {
	t.Helper()
	program, err := filepath.Abs("testdata/trace_caller.py")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, line.Python, append([]string{program}, args...)...)
	cmd.Env = sparktest.SparkEnv(line, dir)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // a driver JVM left behind
	}
	if err != nil {
		t.Fatalf("trace_caller.py %s: %v\n%s\n%s", args[0], err, out.String(), errOut.String())
	}
	cases := map[string]string{}
	for _, ln := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if c, tp, ok := strings.Cut(ln, " "); ok {
			cases[c] = tp
		}
	}
	t.Logf("trace_caller.py %s: %v", args[0], cases)
	return cases
}

// caseOf is the "sparkdx-case=" tag among a job's tags as Spark wrote
// them (Spark prefixes a session's tags with its own ids).
func caseOf(tags []string) string {
	for _, tag := range tags {
		if i := strings.LastIndex(tag, "sparkdx-case="); i >= 0 {
			return tag[i+len("sparkdx-case="):]
		}
	}
	return ""
}

func checkCallerTraces(t *testing.T, spans []sparktest.Span, cases map[string]string) {
	t.Helper()
	apps := map[string]sparktest.Span{}
	for _, sp := range spans {
		if sp.Name == "spark.application" {
			apps[sp.Attr("spark.app.id")] = sp
		}
	}
	jobs := map[string]int{}
	for _, sp := range spans {
		if sp.Name != "spark.job" {
			continue
		}
		tags := sp.Strings("spark.job.tags")
		c := caseOf(tags)
		app, ok := apps[sp.Attr("spark.app.id")]
		if !ok {
			t.Errorf("job %s of %s: no application span", sp.Attr("spark.job.id"), sp.Attr("spark.app.id"))
			continue
		}
		if jobs[c]++; jobs[c] == 1 {
			t.Logf("case %s: job %s tags %q", c, sp.Attr("spark.job.id"), tags)
		}
		wantTrace, wantParent := app.TraceID, app.SpanID
		if tp := cases[c]; tp != "-" && c != "submit" {
			wantTrace, wantParent = traceparentIDs(t, tp)
		}
		if sp.TraceID != wantTrace || sp.ParentSpanID != wantParent {
			t.Errorf("case %s: job %s is in trace %s under %s, want %s under %s (traceparent %s, tags %q)",
				c, sp.Attr("spark.job.id"), sp.TraceID, sp.ParentSpanID, wantTrace, wantParent, cases[c], tags)
		}
	}
	for c := range cases {
		if jobs[c] == 0 {
			t.Errorf("case %s: no job span (jobs by case: %v)", c, jobs)
		}
	}
	// The submitted application is the Airflow task's child; the Connect
	// server's application has no caller.
	subTrace, subParent := traceparentIDs(t, cases["submit"])
	var parents []string
	for _, app := range apps {
		parents = append(parents, app.TraceID+"/"+app.ParentSpanID)
	}
	slices.Sort(parents)
	if len(apps) != 2 || !slices.Contains(parents, subTrace+"/"+subParent) || !slices.ContainsFunc(parents, func(p string) bool { return strings.HasSuffix(p, "/") }) {
		t.Errorf("application spans (trace/parent): got %v, want the Connect server's without a parent and the submitted one's %s/%s",
			parents, subTrace, subParent)
	}
}

// traceparentIDs are the trace and span ids in a W3C traceparent.
func traceparentIDs(t *testing.T, tp string) (traceID, spanID string) {
	t.Helper()
	f := strings.Split(tp, "-")
	if len(f) != 4 {
		t.Fatalf("bad traceparent %q", tp)
	}
	return f[1], f[2]
}
