package ingest

import (
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
//
// spark.yarn.tags are not read for runs: no orchestrator writes its run
// into them by a convention we found, so they stay labels (the fleet's
// ?tag= filter); on YARN, pass --conf spark.sparkdx.run=ID.
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
	}
	return nil
}

// attemptRun is runOf over an attempt's Spark properties.
func attemptRun(a *model.Attempt) *store.Run { return runOf(a.Env.SparkProperties) }
