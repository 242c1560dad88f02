package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// The properties Airflow's OpenLineage provider injects (keys as
// inject_parent_job_information_into_spark_properties writes them).
var (
	olParent = [][2]string{{"spark.openlineage.parentJobNamespace", "default"},
		{"spark.openlineage.parentJobName", "etl_daily.load_orders"},
		{"spark.openlineage.parentRunId", "01931885-2800-7be7-aa8d-aaa15c337267"}}
	olRoot = [][2]string{{"spark.openlineage.rootParentJobNamespace", "default"},
		{"spark.openlineage.rootParentJobName", "etl_daily"},
		{"spark.openlineage.rootParentRunId", "01931885-2800-799d-8041-88a263ffa0d8"}}
	k8sLabels = [][2]string{{"spark.kubernetes.driver.label.dag_id", "etl_daily"},
		{"spark.kubernetes.driver.label.task_id", "load_orders"},
		{"spark.kubernetes.driver.label.run_id", "scheduled__2026-11-25T0000000000-4f1c2b"}}
)

// dbJob are the job-level local properties a Databricks job run sets (as a
// Databricks Runtime 13.3 multi-task job run's event log carries them on
// every SparkListenerJobStart).
var dbJob = [][2]string{{"spark.databricks.job.id", "1041940726383495"}, {"spark.databricks.job.runId", "922419916208772"},
	{"spark.databricks.job.parentRunId", "554754260930625"}}

func cat(xs ...[][2]string) [][2]string {
	var out [][2]string
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

func TestRunOf(t *testing.T) {
	own := [][2]string{{"spark.sparkdx.run", " nightly-42 "}}
	tests := []struct {
		name  string
		props [][2]string
		want  *store.Run
	}{
		{name: "none", props: [][2]string{{"spark.app.name", "x"}, {"spark.yarn.tags", "airflow,dag_id=etl"}}},
		{name: "sparkdx key", props: own, want: &store.Run{ID: "nightly-42", Name: "nightly-42", Source: "sparkdx"}},
		{name: "sparkdx key first", props: cat(olParent, olRoot, k8sLabels, own),
			want: &store.Run{ID: "nightly-42", Name: "nightly-42", Source: "sparkdx"}},
		{name: "openlineage root over parent", props: cat(olParent, olRoot, k8sLabels),
			want: &store.Run{ID: "01931885-2800-799d-8041-88a263ffa0d8", Name: "default/etl_daily", Source: "openlineage-root",
				Task: "etl_daily.load_orders"}},
		{name: "openlineage parent", props: cat(k8sLabels, olParent),
			want: &store.Run{ID: "01931885-2800-7be7-aa8d-aaa15c337267", Name: "default/etl_daily.load_orders", Source: "openlineage"}},
		{name: "openlineage parent without a name", props: [][2]string{{"spark.openlineage.parentRunId", "r1"}},
			want: &store.Run{ID: "r1", Name: "r1", Source: "openlineage"}},
		{name: "airflow kubernetes labels", props: k8sLabels,
			want: &store.Run{ID: "etl_daily/scheduled__2026-11-25T0000000000-4f1c2b", Name: "etl_daily", Source: "airflow-k8s",
				Task: "load_orders"}},
		{name: "dag id without a run id", props: k8sLabels[:2]},
		{name: "oozie action tag", props: [][2]string{{"spark.yarn.tags", "nightly, oozie-3f2a9c4e0b1d47a8e5f6c7d8a9b0c1d2"}},
			want: &store.Run{ID: "oozie-3f2a9c4e0b1d47a8e5f6c7d8a9b0c1d2", Name: "oozie-3f2a9c4e0b1d47a8e5f6c7d8a9b0c1d2", Source: "oozie"}},
		{name: "dataproc job tag", props: [][2]string{{"spark.yarn.tags", "dataproc_job_8f1c2b,dataproc_uuid_4e7a"}},
			want: &store.Run{ID: "dataproc_job_8f1c2b", Name: "8f1c2b", Source: "dataproc"}},
		{name: "openlineage over a yarn tag", props: cat([][2]string{{"spark.yarn.tags", "dataproc_job_8f1c2b"}}, olParent),
			want: &store.Run{ID: "01931885-2800-7be7-aa8d-aaa15c337267", Name: "default/etl_daily.load_orders", Source: "openlineage"}},
		{name: "not orchestrator tags", props: [][2]string{{"spark.yarn.tags", "oozie-nothex00000000000000000000000000,oozie-12,dataproc_job_,oozie"}}},
		{name: "databricks multi-task job", props: dbJob,
			want: &store.Run{ID: "554754260930625", Name: "Databricks job 1041940726383495", Source: "databricks", Task: "1041940726383495"}},
		{name: "databricks single task", props: dbJob[:2],
			want: &store.Run{ID: "922419916208772", Name: "Databricks job 1041940726383495", Source: "databricks", Task: "1041940726383495"}},
		{name: "databricks job id alone", props: dbJob[:1]},
		{name: "openlineage over databricks", props: cat(dbJob, olParent),
			want: &store.Run{ID: "01931885-2800-7be7-aa8d-aaa15c337267", Name: "default/etl_daily.load_orders", Source: "openlineage"}},
		{name: "empty values", props: [][2]string{{"spark.sparkdx.run", " "}, {"spark.openlineage.parentRunId", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runOf(tc.props)
			switch {
			case got == nil && tc.want == nil:
			case got == nil || tc.want == nil || *got != *tc.want:
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestDatabricksJobRunFromLog: a real Spark 4.3.0 event log (the baseline
// scenario's) whose SparkListenerJobStart properties gain the local
// properties a Databricks job run sets, as a Databricks Runtime job's log
// has them on every job, is a run of that Databricks job once replayed:
// the first job's properties reach the attempt, and its run and recurring
// job key come from them. The unchanged log names no run.
func TestDatabricksJobRunFromLog(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "scenarios", "baseline", "spark-4.3.0", "app-20261124150431-0000.zstd"))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	plain, err := dec.DecodeAll(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	var props strings.Builder
	for _, kv := range dbJob {
		fmt.Fprintf(&props, "%q:%q,", kv[0], kv[1])
	}
	var out bytes.Buffer
	jobs := 0
	for _, l := range bytes.SplitAfter(plain, []byte("\n")) {
		if bytes.Contains(l, []byte(`"Event":"SparkListenerJobStart"`)) {
			l = bytes.Replace(l, []byte(`"Properties":{`), []byte(`"Properties":{`+props.String()), 1)
			jobs++
		}
		out.Write(l)
	}
	if jobs == 0 {
		t.Fatal("the log has no SparkListenerJobStart")
	}
	for _, c := range []struct {
		name string
		log  []byte
		want *store.Run
	}{
		{"databricks", out.Bytes(), &store.Run{ID: "554754260930625", Name: "Databricks job 1041940726383495", Source: "databricks", Task: "1041940726383495"}},
		{"as recorded", plain, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "app-20261124150431-0000"), c.log, 0o644); err != nil {
				t.Fatal(err)
			}
			apps, err := replay.LoadApps(context.Background(), dir, replay.Options{})
			if err != nil || len(apps) != 1 || len(apps[0].Attempts) != 1 {
				t.Fatalf("replay: %v (%d apps)", err, len(apps))
			}
			a := apps[0].Attempts[0]
			got := attemptRun(a)
			switch {
			case got == nil && c.want == nil:
			case got == nil || c.want == nil || *got != *c.want:
				t.Errorf("run of the replayed log = %+v, want %+v (job-level properties %v)", got, c.want, a.JobRunProperties)
			}
			if c.want != nil {
				if key := fleet.JobKey(got, a.AppName, a.SparkUser); key != "databricks:job 1041940726383495" {
					t.Errorf("recurring job key %q", key)
				}
			}
		})
	}
}
