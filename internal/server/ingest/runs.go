package ingest

import (
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/server/store"
)

// Spark properties that name an application's run, in the order runOf
// reads them.
const (
	// propRun is sparkdx's own key: any orchestrator (or a person) sets it.
	propRun = "spark.sparkdx.run"
	// Airflow's OpenLineage provider (inject_parent_job_information_into_spark_properties,
	// apache-airflow-providers-openlineage ≥ 2.3 for the root keys) sets the
	// DAG run as the root parent and the task instance as the parent; the
	// lineage_* macros set the same keys by hand.
	propOLRootRunID   = "spark.openlineage.rootParentRunId"
	propOLRootJobName = "spark.openlineage.rootParentJobName"
	propOLRootJobNS   = "spark.openlineage.rootParentJobNamespace"
	propOLRunID       = "spark.openlineage.parentRunId"
	propOLJobName     = "spark.openlineage.parentJobName"
	propOLJobNS       = "spark.openlineage.parentJobNamespace"
	// Airflow's SparkKubernetesOperator labels the SparkApplication's driver
	// with dag_id, task_id and run_id; the Spark operator passes driver
	// labels to spark-submit as spark.kubernetes.driver.label.<key>.
	propK8sDagID  = "spark.kubernetes.driver.label.dag_id"
	propK8sRunID  = "spark.kubernetes.driver.label.run_id"
	propK8sTaskID = "spark.kubernetes.driver.label.task_id"
	// Databricks Jobs set these as local properties of every job a task
	// runs (model.Attempt.JobRunProperties): the job's id (the same every
	// run), the task run's id and, in a multi-task job, the job run's id.
	propDBJobID       = "spark.databricks.job.id"
	propDBRunID       = "spark.databricks.job.runId"
	propDBParentRunID = "spark.databricks.job.parentRunId"
	// Oozie's Spark action passes its launcher's child-job tag to
	// spark-submit as spark.yarn.tags: "oozie-" and the MD5 of the action's
	// id, the same for every application (and retry) of one action.
	// Dataproc tags a job's applications dataproc_job_<job id>.
	propYarnTags = "spark.yarn.tags"
)

// runOf is the run an application belongs to, nil when its properties name
// none. The first of these decides:
//
//  1. spark.sparkdx.run: the run is its value (named by it too).
//  2. spark.openlineage.rootParentRunId: the orchestrator's top run — with
//     Airflow, the DAG run, so every task's applications are one run —
//     named rootParentJobNamespace/rootParentJobName; its task is
//     parentJobName (Airflow's dag_id.task_id).
//  3. spark.openlineage.parentRunId: the parent run — with Airflow's older
//     provider or macros, the task instance — named
//     parentJobNamespace/parentJobName.
//  4. spark.kubernetes.driver.label.dag_id and .run_id (Airflow's
//     SparkKubernetesOperator): the run is "dag_id/run_id" (Airflow's run
//     ids are unique per DAG only), named dag_id; its task is task_id.
//  5. spark.databricks.job.id and .runId (Databricks Jobs, from the
//     jobs' local properties): the run is the job run (parentRunId in a
//     multi-task job, else runId), named "Databricks job <id>"; its task
//     is the job id, the one key that recurs (every application of a
//     Databricks job is named "Databricks Shell", and task run ids change
//     every run).
//  6. a spark.yarn.tags tag an orchestrator writes: Oozie's oozie-<md5 of
//     the action id> (source oozie: the action's applications) or
//     Dataproc's dataproc_job_<job id> (source dataproc). Other tags stay
//     labels only (the fleet's ?tag= filter).
func runOf(props [][2]string) *store.Run {
	p := map[string]string{}
	for _, kv := range props {
		p[kv[0]] = strings.TrimSpace(kv[1])
	}
	join := func(ns, name string) string {
		if ns == "" || name == "" {
			return ns + name
		}
		return ns + "/" + name
	}
	switch {
	case p[propRun] != "":
		return &store.Run{ID: p[propRun], Name: p[propRun], Source: "sparkdx"}
	case p[propOLRootRunID] != "":
		r := &store.Run{ID: p[propOLRootRunID], Name: join(p[propOLRootJobNS], p[propOLRootJobName]),
			Source: "openlineage-root", Task: p[propOLJobName]}
		if r.Name == "" {
			r.Name = r.ID
		}
		return r
	case p[propOLRunID] != "":
		r := &store.Run{ID: p[propOLRunID], Name: join(p[propOLJobNS], p[propOLJobName]), Source: "openlineage"}
		if r.Name == "" {
			r.Name = r.ID
		}
		return r
	case p[propK8sDagID] != "" && p[propK8sRunID] != "":
		return &store.Run{ID: p[propK8sDagID] + "/" + p[propK8sRunID], Name: p[propK8sDagID], Source: "airflow-k8s",
			Task: p[propK8sTaskID]}
	case p[propDBJobID] != "" && p[propDBRunID] != "":
		run := p[propDBParentRunID]
		if run == "" {
			run = p[propDBRunID]
		}
		return &store.Run{ID: run, Name: "Databricks job " + p[propDBJobID], Source: "databricks", Task: p[propDBJobID]}
	}
	return yarnTagRun(p[propYarnTags])
}

// yarnTagRun is the run named by the first orchestrator tag of a
// spark.yarn.tags value, nil when none is.
func yarnTagRun(tags string) *store.Run {
	for _, t := range strings.Split(tags, ",") {
		t = strings.TrimSpace(t)
		switch {
		case isOozieTag(t):
			return &store.Run{ID: t, Name: t, Source: "oozie"}
		case strings.HasPrefix(t, "dataproc_job_") && len(t) > len("dataproc_job_"):
			return &store.Run{ID: t, Name: strings.TrimPrefix(t, "dataproc_job_"), Source: "dataproc"}
		}
	}
	return nil
}

// isOozieTag reports whether t is the tag Oozie gives an action's child
// jobs: "oozie-" and 32 lower-case hex digits.
func isOozieTag(t string) bool {
	h, ok := strings.CutPrefix(t, "oozie-")
	if !ok || len(h) != 32 {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// attemptRun is runOf over an attempt's Spark properties and, after them,
// the orchestrator's job-level properties (Databricks).
func attemptRun(a *model.Attempt) *store.Run {
	if len(a.JobRunProperties) == 0 {
		return runOf(a.Env.SparkProperties)
	}
	return runOf(append(slices.Clip(a.Env.SparkProperties), a.JobRunProperties...))
}
