package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestServeLiveResourceWait submits a PySpark application to a real
// standalone Master that has no Worker yet, while `sparkdx serve` tails
// its event log. While the driver waits (it writes nothing then), serve's
// spark_resource_wait_seconds grows with the clock — what lets the
// SparkLongResourceWait alert fire during the wait; once a Worker starts
// the application runs, and its report counts the wait as resource wait.
func TestServeLiveResourceWait(t *testing.T) {
	lines := sparktest.SparkLines(t)
	line := lines[len(lines)-1]
	bin := buildSparkdx(t)
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 0})
	logs := t.TempDir()
	serve := startServe(t, bin, logs, t.TempDir())
	program := filepath.Join(t.TempDir(), "count.py")
	if err := os.WriteFile(program, []byte("from pyspark.sql import SparkSession\n"+
		"spark = SparkSession.builder.appName('waits-for-a-worker').getOrCreate()\n"+
		"print(spark.range(1000).count())\nspark.stop()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := sparktest.DefaultConf(t, logs)
	type result struct {
		res sparktest.Submitted
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := c.Submit(context.Background(), sparktest.Submission{Program: program, Conf: conf, EventLogDir: logs})
		done <- result{res, err}
	}()
	waitRE := regexp.MustCompile(`spark_resource_wait_seconds\{[^}]*app_id="([^"]+)"[^}]*\} (\S+)`)
	wait := func() (app string, seconds float64) {
		status, b, err := hstest.Fetch(serve.url + "/metrics")
		if err != nil || status != http.StatusOK {
			return "", 0
		}
		m := waitRE.FindSubmatch(b)
		if m == nil {
			return "", 0
		}
		v, _ := strconv.ParseFloat(string(m[2]), 64)
		return string(m[1]), v
	}
	var app string
	var first float64
	for deadline := time.Now().Add(2 * time.Minute); first < 20; time.Sleep(time.Second) {
		select {
		case r := <-done:
			t.Fatalf("the application ended without a Worker: %v (exit %d)\n%s", r.err, r.res.ExitCode, r.res.Output)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve's resource wait reached %.0f s in 2 minutes, want 20 s; serve:\n%s", first, serve.logs)
		}
		app, first = wait()
	}
	// The job waiting with it runs as long (spark_job_running_seconds,
	// what SparkJobRunningLong reads), growing with the clock too.
	jobRE := regexp.MustCompile(`spark_job_running_seconds\{app_id="` + regexp.QuoteMeta(app) + `"[^}]*job_id="0"\} (\S+)`)
	job := func() float64 {
		_, b, err := hstest.Fetch(serve.url + "/metrics")
		if err != nil {
			return -1
		}
		m := jobRE.FindSubmatch(b)
		if m == nil {
			return -1
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	// (The job's start reaches serve's analysis up to 15 s after the wait's.)
	jobFirst := job()
	for deadline := time.Now().Add(45 * time.Second); jobFirst < 0 && time.Now().Before(deadline); time.Sleep(time.Second) {
		jobFirst = job()
	}
	// serve analyses a running application again every 15 s.
	time.Sleep(16 * time.Second)
	if _, later := wait(); later < first+10 {
		t.Errorf("resource wait %.0f s, then %.0f s 16 s later: want it to grow while the driver waits", first, later)
	}
	if later := job(); jobFirst < 0 || later < jobFirst+10 {
		t.Errorf("job 0 running %.0f s, then %.0f s 16 s later (-1: no series): want it to grow while the job waits", jobFirst, later)
	}
	// SparkLongResourceWait also needs the wait's share of the wall time:
	// nearly all of it while no executor came (the driver's start aside).
	shareRE := regexp.MustCompile(`spark_phase_breakdown_ratio\{app_id="` + regexp.QuoteMeta(app) + `"[^}]*phase="resource_wait"[^}]*\} (\S+)`)
	if _, b, err := hstest.Fetch(serve.url + "/metrics"); err != nil {
		t.Error(err)
	} else if m := shareRE.FindSubmatch(b); m == nil {
		t.Errorf("no resource_wait share of %s in /metrics", app)
	} else if share, _ := strconv.ParseFloat(string(m[1]), 64); share < 0.8 {
		t.Errorf("resource_wait share %v while the driver waits, want most of its wall time (SparkLongResourceWait needs over 0.25)", share)
	}
	c.AddWorker(1, "1g")
	r := <-done
	if r.err != nil || r.res.ExitCode != 0 {
		t.Fatalf("spark-submit: %v (exit %d)\n%s", r.err, r.res.ExitCode, r.res.Output)
	}
	waitFinished(t, serve, app)
	status, b, err := hstest.Fetch(serve.url + "/api/sparkdx/v1/apps/" + app + "/report")
	if err != nil || status != http.StatusOK {
		t.Fatalf("report: %d %v", status, err)
	}
	var rep struct {
		App    struct{ DurationMs int64 }
		Phases struct{ ResourceWaitMs, ComputeMs int64 }
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Phases.ResourceWaitMs < int64(first+10)*1000 || rep.Phases.ResourceWaitMs >= rep.App.DurationMs || rep.Phases.ComputeMs == 0 {
		t.Errorf("finished report: resource wait %d ms, compute %d ms of %d ms; want the wait (over %.0f s) then computing",
			rep.Phases.ResourceWaitMs, rep.Phases.ComputeMs, rep.App.DurationMs, first+10)
	}
	t.Logf("Spark %s: serve showed %.0f s of resource wait while the driver waited; the finished report: %d ms of %d ms",
		line.Version, first, rep.Phases.ResourceWaitMs, rep.App.DurationMs)
}
