package server

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestRunKeyRealSpark: two real Spark applications submitted with
// --conf spark.sparkdx.run=ID, sparkdx's own key for any scheduler (on
// YARN, where no orchestrator writes its run anywhere sparkdx reads), are
// one run in serve's API, named by the key, even when one also carries
// the OpenLineage parent run Airflow passes (the documented order: the
// sparkdx key decides first); a third without either is in no run.
func TestRunKeyRealSpark(t *testing.T) {
	line := sparktest.SparkLines(t)[0]
	logs := t.TempDir()
	program := filepath.Join(t.TempDir(), "count.py")
	if err := os.WriteFile(program, []byte("from pyspark.sql import SparkSession\n"+
		"s = SparkSession.builder.getOrCreate()\nprint(s.range(1000).count())\ns.stop()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const run = "nightly-2026-11-26"
	for _, extra := range []map[string]string{
		{"spark.sparkdx.run": run},
		{"spark.sparkdx.run": " " + run + " ", "spark.openlineage.parentRunId": "0195a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b",
			"spark.openlineage.parentJobNamespace": "airflow", "spark.openlineage.parentJobName": "nightly.load"},
		{},
	} {
		conf := sparktest.DefaultConf(t, logs)
		for k, v := range extra {
			conf[k] = v
		}
		res, err := sparktest.SubmitTo(context.Background(), line, "local[1]", t.TempDir(),
			sparktest.Submission{Program: program, Conf: conf, EventLogDir: logs})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("spark-submit with %v: %v (exit %d)\n%s", extra, err, res.ExitCode, res.Output)
		}
	}
	ts := startServer(t, t.TempDir(), "", logs)
	ts.waitIdle(t)

	var all []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &all)
	if len(all) != 3 {
		t.Fatalf("got %d applications, want the 3 submitted", len(all))
	}
	var rs []fleet.RunSummary
	ts.getJSON(t, "/api/sparkdx/v1/runs", &rs)
	if len(rs) != 1 || rs[0].ID != run || rs[0].Name != run || rs[0].Source != "sparkdx" || rs[0].Apps != 2 || rs[0].Status != "completed" {
		t.Fatalf("runs: got %+v, want one completed run %s from spark.sparkdx.run with 2 applications", rs, run)
	}
	var in []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps?run="+run, &in)
	var ids []string
	for _, a := range in {
		ids = append(ids, a.ID)
	}
	if len(ids) != 2 {
		t.Errorf("apps?run=%s: got %v, want the 2 applications submitted with the key", run, ids)
	}
	for _, a := range all {
		if !slices.Contains(ids, a.ID) && a.Run != nil {
			t.Errorf("application %s without a run key: got run %+v, want none", a.ID, a.Run)
		}
	}
}
