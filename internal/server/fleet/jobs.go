package fleet

import (
	"net/url"

	"github.com/sparkdx/sparkdx/internal/server/store"
)

// JobKey is the recurring job an application is a run of: the
// orchestrator's task when its run names one (Airflow's dag_id.task_id;
// a Databricks job's id, "databricks:job <id>"), else the application's
// name and user (a spark.sparkdx.run value names a run, not a job). The
// job API and the pages' links both key jobs by it.
func JobKey(run *store.Run, appName, user string) string {
	if run != nil && run.Source == "databricks" && run.Task != "" {
		return "databricks:job " + run.Task
	}
	if run != nil && run.Task != "" {
		return run.Source + ":" + run.Name + "/" + run.Task
	}
	return appName + " by " + user
}

// JobHref is the page of the recurring job the application is a run of.
func (a AppSummary) JobHref() string { return "/jobs/" + url.PathEscape(JobKey(a.Run, a.Name, a.User)) }
