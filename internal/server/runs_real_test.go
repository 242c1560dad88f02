package server

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/agent"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
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

// TestRunsRealSpark runs two real PySpark applications on a Spark 3.5
// standalone cluster with the OpenLineage parent run Airflow passes (one
// Airflow task's two applications): one by spark-submit --conf
// spark.openlineage.parentRunId=…, one by python job.py with the same
// properties in its session builder. A real sparkdx agent on this machine
// samples their processes and pushes OTLP to serve: serve's API has them as
// one run, with the peaks of their drivers, executors, Python workers and
// the second one's launcher.
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
	conf := func() map[string]string {
		conf := sparktest.DefaultConf(t, logs)
		conf["spark.openlineage.parentRunId"] = run
		conf["spark.openlineage.parentJobNamespace"] = "airflow"
		conf["spark.openlineage.parentJobName"] = "nightly.load"
		return conf
	}
	// sampleUntil samples (pushing each sample to serve) until ok has held
	// in three samples (CPU needs two), failing the test after 3 minutes or
	// when stop says the application ended.
	sampleUntil := func(what string, ok func(*agent.Snapshot) bool, stop func() bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for seen := 0; seen < 3; {
			if stop() {
				t.Fatalf("the application ended before the agent saw %s", what)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the agent did not see %s in 3 minutes\n%s", what, c.Logs())
			}
			s, err := ag.Sample(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if ok(s) {
				seen++
			}
			time.Sleep(time.Second)
		}
	}
	// ofApp finds an application's driver when the sample also has one of
	// its executors with Python workers.
	ofApp := func(s *agent.Snapshot, app string) (driver *agent.Process, ok bool) {
		for i := range s.Processes {
			p := &s.Processes[i]
			switch {
			case p.AppID != app:
			case p.Role == agent.RoleExecutor && p.Tree[agent.KindPython].Processes > 0:
				ok = true
			case p.Role == agent.RoleDriver:
				driver = p
			}
		}
		if !ok {
			return nil, false
		}
		return driver, true
	}

	// The first application: spark-submit --conf …, as Airflow's
	// SparkSubmitOperator runs it.
	release := filepath.Join(t.TempDir(), "release")
	type result struct {
		res sparktest.Submitted
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := c.Submit(ctx, sparktest.Submission{Program: program, Args: []string{release}, Conf: conf()})
		done <- result{res, err}
	}()
	// Its id is the name of the event log it writes in logs: other tests'
	// Spark processes on this machine are sampled too.
	var first string
	sampleUntil("the spark-submit application's driver and Python workers", func(s *agent.Snapshot) bool {
		if first == "" {
			ms, _ := filepath.Glob(filepath.Join(logs, "*.inprogress"))
			if len(ms) == 0 {
				return false
			}
			first = strings.TrimSuffix(filepath.Base(ms[0]), ".inprogress")
		}
		d, _ := ofApp(s, first)
		return d != nil
	}, func() bool { return len(done) > 0 })
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || r.res.ExitCode != 0 {
		t.Fatalf("spark-submit: %v (exit %d)\n%s", r.err, r.res.ExitCode, r.res.Output)
	}

	// The second: python job.py against the cluster with the same
	// properties in its session builder, as a PythonOperator runs it; the
	// Python program is the driver's launcher.
	props, err := json.Marshal(conf())
	if err != nil {
		t.Fatal(err)
	}
	job, second := sparktest.StartPySpark(t, line, "import json, sys\nfrom pyspark.sql import SparkSession\n"+
		"b = SparkSession.builder.master("+strconv.Quote(c.MasterURL)+")\n"+
		"for k, v in json.loads("+strconv.Quote(string(props))+").items():\n    b = b.config(k, v)\n"+
		"s = b.getOrCreate()\n"+
		"print('sum', s.sparkContext.parallelize(range(300000), 2).map(lambda x: x * x).sum(), flush=True)\n"+
		"print('ready', s.sparkContext.applicationId, flush=True)\nsys.stdin.readline()\ns.stop()\n")
	sampleUntil("the python job.py application's driver, launcher and Python workers", func(s *agent.Snapshot) bool {
		d, _ := ofApp(s, second)
		return d != nil && d.Launcher != nil
	}, func() bool { return job.Cmd.ProcessState != nil })
	if _, err := job.Stdin.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	if err := job.Cmd.Wait(); err != nil {
		t.Fatalf("python job.py: %v", err)
	}
	apps := []string{first, second}

	var d fleet.RunDetail
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
	if len(got) != 2 || !slices.Contains(got, apps[0]) || !slices.Contains(got, apps[1]) {
		t.Errorf("run applications: got %v, want %v", got, apps)
	}
	rows := map[string]fleet.ProcessUsage{}
	for _, p := range d.Processes {
		rows[p.Type] = p
	}
	for _, w := range []struct {
		typ       string
		processes int
		rss       float64
	}{{"driver", 2, 50 << 20}, {"executor", 2, 50 << 20}, {"python", 2, 5 << 20}, {"launcher", 1, 10 << 20}} {
		p := rows[w.typ]
		if p.Processes < w.processes || p.MaxRSSBytes == nil || p.MaxRSSBytes.Value < w.rss || p.MaxCPUCores == nil {
			t.Errorf("%s: got %+v, want %d processes or more, an RSS over %.0f MiB and a CPU peak", w.typ, p, w.processes, w.rss/(1<<20))
		}
	}
	for _, p := range d.Processes {
		t.Logf("%s: %d processes, max CPU %+v, max RSS %+v", p.Type, p.Processes, p.MaxCPUCores, p.MaxRSSBytes)
	}
}
