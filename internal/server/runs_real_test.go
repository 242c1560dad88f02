package server

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/agent"
	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// runJob is a PySpark program that runs one job through Python workers,
// then waits for its release file (argv[1]) before it stops, so the agent
// samples its executor and the workers while they live.
const runJob = `import os, sys, time
from pyspark.sql import SparkSession
s = SparkSession.builder.getOrCreate()
print("sum", s.sparkContext.parallelize(range(300000), 2).map(lambda x: x * x).sum(), flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.2)
s.stop()
`

// TestRunsRealSpark submits two real PySpark applications (Spark 3.5, a
// standalone cluster) with the OpenLineage parent run Airflow passes
// (--conf spark.openlineage.parentRunId=…: one Airflow task that submits
// two applications), while a real sparkdx agent on
// this machine samples their processes and pushes OTLP to serve: serve's
// API has them as one run, with their executor JVMs' and Python workers'
// peaks from the agent.
func TestRunsRealSpark(t *testing.T) {
	line := sparktest.SparkLines(t)[0]
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: 1, CoresPerWorker: 1, MemoryPerWorker: "1g"})
	logs := t.TempDir()
	ts := startServer(t, t.TempDir(), "", logs)
	ag, err := agent.New(agent.Config{Interval: time.Second, Host: "node-1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o, err := agent.NewOTLP(ctx, ag, ts.url, agent.ProtocolHTTP, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Shutdown(ctx)
	program := filepath.Join(t.TempDir(), "job.py")
	if err := os.WriteFile(program, []byte(runJob), 0o644); err != nil {
		t.Fatal(err)
	}

	const run = "0195a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"
	var apps []string
	for i := range 2 {
		conf := sparktest.DefaultConf(t, logs)
		conf["spark.openlineage.parentRunId"] = run
		conf["spark.openlineage.parentJobNamespace"] = "airflow"
		conf["spark.openlineage.parentJobName"] = "nightly.load"
		release := filepath.Join(t.TempDir(), "release")
		type result struct {
			res sparktest.Submitted
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := c.Submit(ctx, sparktest.Submission{Program: program, Args: []string{release}, Conf: conf})
			done <- result{res, err}
		}()
		// Sample until this application's executor has had Python workers
		// in three samples (CPU needs two), pushing each sample to serve.
		app, seen := "", 0
		deadline := time.Now().Add(3 * time.Minute)
		for seen < 3 {
			select {
			case r := <-done:
				t.Fatalf("app %d ended before the agent saw its Python workers: %v (exit %d)\n%s", i, r.err, r.res.ExitCode, r.res.Output)
			default:
			}
			if time.Now().After(deadline) {
				os.WriteFile(release, nil, 0o644)
				t.Fatalf("app %d: the agent saw no executor with Python workers in 3 minutes\n%s", i, c.Logs())
			}
			s, err := ag.Sample(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			for _, p := range s.Processes {
				if p.Role == agent.RoleExecutor && p.AppID != "" && !contains(apps, p.AppID) && p.Tree[agent.KindPython].Processes > 0 {
					app = p.AppID
					seen++
				}
			}
			time.Sleep(time.Second)
		}
		if err := os.WriteFile(release, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.err != nil || r.res.ExitCode != 0 {
			t.Fatalf("app %d: spark-submit: %v (exit %d)\n%s", i, r.err, r.res.ExitCode, r.res.Output)
		}
		apps = append(apps, app)
	}

	var d RunDetail
	waitFor(t, "serve to have both applications, finished, in the run", func() (bool, string) {
		code, b := ts.get(t, "/api/sparkdx/v1/runs/"+url.PathEscape(run))
		if code != 200 || jsonUnmarshal(b, &d) != nil {
			return false, string(b)
		}
		return d.Apps == 2 && d.Status == "completed", d.Status
	})
	if d.Name != "airflow/nightly.load" || d.Source != "openlineage" {
		t.Errorf("run: got name %q from %s, want airflow/nightly.load from openlineage", d.Name, d.Source)
	}
	var got []string
	for _, a := range d.AppList {
		got = append(got, a.ID)
	}
	if len(got) != 2 || !contains(got, apps[0]) || !contains(got, apps[1]) {
		t.Errorf("run applications: got %v, want %v", got, apps)
	}
	rows := map[string]ProcessUsage{}
	for _, p := range d.Processes {
		rows[p.Type] = p
	}
	e, py := rows["executor"], rows["python"]
	if e.Processes != 2 || e.MaxRSSBytes == nil || e.MaxRSSBytes.Value < 50<<20 || e.MaxCPUCores == nil || e.MaxCPUCores.Value <= 0 {
		t.Errorf("executor JVMs: got %+v, want 2 processes, an RSS over 50 MiB and some CPU", e)
	}
	if py.Processes != 2 || py.MaxRSSBytes == nil || py.MaxRSSBytes.Value < 5<<20 {
		t.Errorf("Python workers: got %+v, want 2 executors' workers with their RSS", py)
	}
	for _, p := range d.Processes {
		t.Logf("%s: %d processes, max CPU %+v, max RSS %+v", p.Type, p.Processes, p.MaxCPUCores, p.MaxRSSBytes)
	}
}
