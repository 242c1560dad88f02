package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/web/ui"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestDrillDownChromium drives headless Chromium from the fleet page to an
// application, its jobs, a stage (quantiles, per-executor summary, task
// list sorted and paged by the server) and its environment, by clicking
// links as a person does; every page shows the History Server API's
// numbers for the same application, keeps a hostile application name
// escaped, has no console error and fits 1280 px without clipping.
func TestDrillDownChromium(t *testing.T) {
	bin := sparktest.Program(t, "chromium")
	ts := startServer(t, t.TempDir(), "", sparktest.Path(t, "spark-events"), "../../testdata/scenarios/executor-killed/spark-4.3.0",
		"../../testdata/scenarios/join-explosion/spark-4.3.0", "../../testdata/scenarios/shuffle-files-lost/spark-4.3.0")
	ts.waitIdle(t)
	c := sparktest.StartPage(t, bin, 1280, 900)

	// Fleet → app: a failed application opens on its root cause, the failed
	// stage one click away.
	const app = "local-1422981780767" // four stages, one with failed tasks
	c.Navigate(ts.url + "/")
	c.Click(`tr[data-app="` + app + `"] a`)
	if got := c.EvalString(`document.querySelector("#root-cause").textContent`); !strings.Contains(got, "java.lang.RuntimeException") ||
		!strings.Contains(got, "got a 3, failing") || !strings.Contains(got, "stage 2.0") {
		t.Errorf("root cause box: %q; want the exception, its message and the failed stage", got)
	}
	// The task-failures finding names stage 2: its link opens the stage.
	if got := c.EvalString(`document.querySelector("a.finding-stage").getAttribute("href")`); got != "/apps/"+app+"/stages/2/0" {
		t.Errorf("the finding's stage link is %q", got)
	}
	if c.EvalInt(`document.querySelectorAll("#root-task").length`) != 1 {
		t.Errorf("root cause: no link to the failed task")
	}
	c.Click(`#root-stage`)
	if got := c.EvalString(`location.pathname`); got != "/apps/"+app+"/stages/2/0" {
		t.Errorf("root cause's stage link led to %s", got)
	}
	c.Screenshot("root-cause-stage")
	// The finding's recipe is one click away, served from the binary.
	c.Navigate(ts.url + "/apps/" + app)
	c.Click(`.finding a[href^="/recipes/"]`)
	if got := c.EvalString(`location.pathname`); !strings.HasPrefix(got, "/recipes/troubleshoot/") ||
		!strings.Contains(c.EvalString(`document.querySelector("pre.howto").textContent`), "task") {
		t.Errorf("the finding's recipe link led to %s", got)
	}
	c.CheckFits("recipe page", 1280)
	c.Navigate(ts.url + "/apps/" + app)
	c.Screenshot("failed-app")
	c.CheckFits("failed app page", 1280)
	c.Click(`#jobs-link`)
	if got := c.EvalString(`location.pathname`); got != "/apps/"+app+"/jobs" {
		t.Fatalf("after clicking Jobs: at %s", got)
	}
	var jobs []struct {
		JobID    int    `json:"jobId"`
		Status   string `json:"status"`
		StageIDs []int  `json:"stageIds"`
	}
	ts.getJSON(t, "/api/v1/applications/"+app+"/jobs", &jobs)
	if n := c.EvalInt(`document.querySelectorAll("#jobs tbody tr").length`); n != len(jobs) {
		t.Errorf("jobs page: %d rows, the API lists %d jobs", n, len(jobs))
	}
	c.Screenshot("jobs")
	c.CheckFits("jobs page", 1280)

	// A job's page lists the stage attempts it ran, as the API has them.
	failedJob, stagesRun := -1, 0
	for _, j := range jobs {
		if j.Status == "FAILED" {
			failedJob, stagesRun = j.JobID, len(j.StageIDs) // each ran once
		}
	}
	c.Click(fmt.Sprintf(`a.job-link[href^="/apps/%s/jobs/%d"]`, app, failedJob))
	if n := c.EvalInt(`document.querySelectorAll("#job-stages tbody tr").length`); n != stagesRun || n == 0 {
		t.Errorf("failed job %d: %d stage rows, want its %d stage attempts", failedJob, n, stagesRun)
	}
	if got := c.EvalString(`document.querySelector("#job-stages details summary").textContent`); !strings.Contains(got, "Job aborted") {
		t.Errorf("failed job's stage: failure reason %q", got)
	}
	c.CheckFits("job page", 1280)
	c.Navigate(ts.url + "/apps/" + app + "/jobs")

	// The stage whose tasks failed: its quantiles, executors and tasks.
	var stage struct {
		NumTasks         int `json:"numTasks"`
		NumCompleteTasks int `json:"numCompleteTasks"`
		NumFailedTasks   int `json:"numFailedTasks"`
	}
	ts.getJSON(t, "/api/v1/applications/"+app+"/stages/2/0", &stage)
	c.Click(`a.stage-link[href^="/apps/` + app + `/stages/2/0"]`)
	if got := c.EvalString(`document.querySelector("h1").textContent`); !strings.HasPrefix(got, "Stage 2.0") {
		t.Errorf("stage page h1 %q", got)
	}
	if n := c.EvalInt(`document.querySelectorAll("#quantiles tbody tr").length`); n < 3 {
		t.Errorf("stage page: %d quantile rows, want duration, run time, GC and more", n)
	}
	var summary struct {
		Duration []float64 `json:"duration"`
	}
	ts.getJSON(t, "/api/v1/applications/"+app+"/stages/2/0/taskSummary?quantiles=0,0.25,0.5,0.75,1", &summary)
	if got := c.EvalString(`document.querySelector("#quantiles tbody tr td:nth-child(4)").textContent`); got != fmtMs(int64(summary.Duration[2])) {
		t.Errorf("median task duration shown %q, the API says %v ms", got, summary.Duration[2])
	}
	rows := c.EvalInt(`document.querySelectorAll("#tasks tbody tr").length`)
	failed := c.EvalInt(`document.querySelectorAll("#tasks tbody tr.task-FAILED").length`)
	if rows != stage.NumCompleteTasks+stage.NumFailedTasks || failed != stage.NumFailedTasks || failed == 0 {
		t.Errorf("task list: %d rows (%d failed); the API: %d complete, %d failed", rows, failed, stage.NumCompleteTasks, stage.NumFailedTasks)
	}
	if c.EvalInt(`document.querySelectorAll("#tasks tr.task-FAILED details pre").length`) != failed {
		t.Errorf("a failed task's error is not one click away")
	}
	// Every finished task is in one bar of the duration histogram.
	if n := c.EvalInt(`[...document.querySelectorAll("#duration-hist rect")].reduce((n, r) => n + parseInt(r.textContent), 0)`); n != rows {
		t.Errorf("duration histogram holds %d tasks, the stage finished %d", n, rows)
	}
	c.Screenshot("stage")
	c.CheckFits("stage page", 1280)
	// The per-executor summary is the API's executorSummary.
	var perExec struct {
		ExecutorSummary map[string]struct {
			TaskTime       int64 `json:"taskTime"`
			SucceededTasks int   `json:"succeededTasks"`
			FailedTasks    int   `json:"failedTasks"`
		} `json:"executorSummary"`
	}
	ts.getJSON(t, "/api/v1/applications/"+app+"/stages/2/0?details=true&taskStatus=UNKNOWN", &perExec)
	var execRows [][]string
	if err := json.Unmarshal(c.Eval(`[...document.querySelectorAll("#stage-executors tbody tr")].map(tr => [...tr.cells].slice(0, 4).map(td => td.textContent))`), &execRows); err != nil {
		t.Fatal(err)
	}
	if len(execRows) != len(perExec.ExecutorSummary) || len(execRows) == 0 {
		t.Errorf("per-executor summary: %d rows, the API has %d executors", len(execRows), len(perExec.ExecutorSummary))
	}
	for _, r := range execRows {
		e := perExec.ExecutorSummary[r[0]]
		if want := []string{r[0], fmtMs(e.TaskTime), fmt.Sprint(e.SucceededTasks), fmt.Sprint(e.FailedTasks)}; strings.Join(r, "|") != strings.Join(want, "|") {
			t.Errorf("per-executor row %v, the API says %v", r, want)
		}
	}
	// Each executor of the per-executor summary opens its row of the
	// executors page.
	execID := c.EvalString(`document.querySelector("#stage-executors a.exec-link").textContent`)
	c.Click(`#stage-executors a.exec-link`)
	if got := c.EvalString(`location.pathname + location.hash`); got != "/apps/"+app+"/executors#exec-"+execID ||
		c.EvalString(`document.querySelector(location.hash).dataset.exec`) != execID {
		t.Errorf("stage's executor %s link led to %s", execID, got)
	}
	c.Navigate(ts.url + "/apps/" + app + "/stages/2/0")

	// The failed task's own page: its error and every metric the API has.
	var failedTasks []struct {
		TaskID      int64          `json:"taskId"`
		TaskMetrics map[string]any `json:"taskMetrics"`
	}
	ts.getJSON(t, "/api/v1/applications/"+app+"/stages/2/0/taskList?length=100", &failedTasks)
	c.Click(`tr.task-FAILED a.task-link`)
	if got := c.EvalString(`document.querySelector("#task-error").textContent`); !strings.Contains(got, "got a 3, failing") {
		t.Errorf("task page error: %q", got)
	}
	for _, k := range failedTasks {
		if got := c.EvalString(`document.querySelector("h1").textContent`); !strings.HasPrefix(got, fmt.Sprintf("Task %d ", k.TaskID)) {
			continue
		}
		want := 0
		var count func(m map[string]any)
		count = func(m map[string]any) {
			for _, v := range m {
				if sub, ok := v.(map[string]any); ok {
					count(sub)
				} else {
					want++
				}
			}
		}
		count(k.TaskMetrics)
		if n := c.EvalInt(`document.querySelectorAll("#task-metrics tr").length`); n != want || want == 0 {
			t.Errorf("task %d page: %d metrics, the API has %d", k.TaskID, n, want)
		}
	}
	c.CheckFits("task page", 1280)
	c.Navigate(ts.url + "/apps/" + app + "/stages/2/0")

	// Longest first, two tasks a page: the server sorts and pages.
	c.Navigate(ts.url + "/apps/" + app + "/stages/2/0?length=2")
	c.Click(`a.sort[data-sort="-runtime"]`)
	var longest []struct {
		TaskID int64 `json:"taskId"`
	}
	ts.getJSON(t, "/api/v1/applications/"+app+"/stages/2/0/taskList?sortBy=-runtime&length=4", &longest)
	first := func() string { return c.EvalString(`document.querySelector("#tasks tbody tr td").textContent`) }
	if got := first(); got != fmt.Sprint(longest[0].TaskID) {
		t.Errorf("longest first: first task %s, the API's longest is %d", got, longest[0].TaskID)
	}
	c.Click(`#next`)
	if got := first(); got != fmt.Sprint(longest[2].TaskID) {
		t.Errorf("next page: first task %s, want the API's third longest %d", got, longest[2].TaskID)
	}
	c.Click(`#prev`)
	if got := first(); got != fmt.Sprint(longest[0].TaskID) {
		t.Errorf("previous page: first task %s, want %d", got, longest[0].TaskID)
	}
	c.CheckFits("stage page sorted and paged", 1280)

	// Environment: as the History Server shows it, secrets redacted.
	const secretApp = "app-20200706201101-0003"
	c.Navigate(ts.url + "/apps/" + secretApp)
	c.Click(`#env-link`)
	var env struct {
		SparkProperties [][2]string `json:"sparkProperties"`
	}
	ts.getJSON(t, "/api/v1/applications/"+secretApp+"/environment", &env)
	if n := c.EvalInt(`document.querySelectorAll("#env-spark tr").length`); n != len(env.SparkProperties) {
		t.Errorf("environment: %d Spark properties shown, the API has %d", n, len(env.SparkProperties))
	}
	if n := c.EvalInt(`[...document.querySelectorAll("#env-spark td")].filter(td => td.textContent == "*********(redacted)").length`); n == 0 {
		t.Errorf("environment: no redacted value shown")
	}
	c.Screenshot("environment")
	c.CheckFits("environment page", 1280)

	// SQL: the list, then a query's plan graph with each node's metrics and
	// the jobs it ran, as the API has them.
	c.Navigate(ts.url + "/apps/" + secretApp)
	c.Click(`#sql-link`)
	var queries []struct {
		ID            int   `json:"id"`
		SuccessJobIDs []int `json:"successJobIds"`
	}
	ts.getJSON(t, "/api/v1/applications/"+secretApp+"/sql", &queries)
	if n := c.EvalInt(`document.querySelectorAll("#queries tbody tr").length`); n != len(queries) || n == 0 {
		t.Errorf("SQL list: %d rows, the API lists %d queries", n, len(queries))
	}
	c.Click(`a.query-link`)
	var q struct {
		Nodes []struct {
			NodeID  int `json:"nodeId"`
			Metrics []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"metrics"`
		} `json:"nodes"`
		Edges []any `json:"edges"`
	}
	ts.getJSON(t, fmt.Sprintf("/api/v1/applications/%s/sql/%d?details=true", secretApp, queries[0].ID), &q)
	if n := c.EvalInt(`document.querySelectorAll("#plan g.plan-node").length`); n != len(q.Nodes) {
		t.Errorf("plan graph: %d nodes, the API has %d", n, len(q.Nodes))
	}
	if n := c.EvalInt(`document.querySelectorAll("#plan line").length`); n != len(q.Edges) {
		t.Errorf("plan graph: %d edges, the API has %d", n, len(q.Edges))
	}
	for _, n := range q.Nodes {
		if len(n.Metrics) == 0 {
			continue
		}
		want := n.Metrics[0].Name + ": " + n.Metrics[0].Value
		got := c.EvalString(fmt.Sprintf(`document.querySelector('#plan g[data-node="%d"] text:nth-of-type(2)').textContent`, n.NodeID))
		if cut, ok := strings.CutSuffix(got, "…"); ok && strings.HasPrefix(want, cut) {
			got = want // clipped to fit its box; the node's title holds it whole
		}
		if got != want {
			t.Errorf("plan node %d: first metric %q, the API says %q", n.NodeID, got, want)
		}
	}
	if n := c.EvalInt(`document.querySelectorAll("#query-jobs tbody tr").length`); n != len(queries[0].SuccessJobIDs) {
		t.Errorf("query jobs: %d rows, the API says the query ran %d jobs", n, len(queries[0].SuccessJobIDs))
	}
	c.Screenshot("sql-query")
	c.CheckFits("SQL query page", 1280)
	c.Click(`#query-jobs a.stage-link`)
	if got := c.EvalString(`document.querySelector("h1").textContent`); !strings.HasPrefix(got, "Stage ") {
		t.Errorf("a query's stage link led to %q", got)
	}

	// Executors, a real Spark 4.3 application whose executor was killed:
	// every executor the API lists, the dead one with why it ended.
	var killed []struct {
		ID             string            `json:"id"`
		IsActive       bool              `json:"isActive"`
		RemoveReason   string            `json:"removeReason"`
		ExecutorLogs   map[string]string `json:"executorLogs"`
		CompletedTasks int               `json:"completedTasks"`
		FailedTasks    int               `json:"failedTasks"`
		TotalDuration  int64             `json:"totalDuration"`
		TotalGCTime    int64             `json:"totalGCTime"`
	}
	var apps []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &apps)
	var killedApp, joinApp string
	retried := false
	for _, a := range apps {
		switch a.Name {
		case "scenario-executor-killed":
			killedApp = a.ID
		case "scenario-join-explosion":
			joinApp = a.ID
		case "scenario-shuffle-files-lost":
			// A map stage Spark ran again: its attempts link each other.
			var st []struct {
				StageID   int `json:"stageId"`
				AttemptID int `json:"attemptId"`
			}
			ts.getJSON(t, "/api/v1/applications/"+a.ID+"/stages", &st)
			for _, x := range st {
				if x.AttemptID == 1 {
					c.Navigate(fmt.Sprintf("%s/apps/%s/stages/%d/1", ts.url, a.ID, x.StageID))
					c.Click(`a.attempt-link`)
					if got := c.EvalString(`document.querySelector("h1").textContent`); !strings.HasPrefix(got, fmt.Sprintf("Stage %d.0", x.StageID)) {
						t.Errorf("stage %d.1's link to attempt 0 led to %q", x.StageID, got)
					}
					retried = true
					break
				}
			}
		}
	}
	if !retried {
		t.Error("the shuffle-files-lost scenario has no stage attempt 1")
	}
	// The join-explosion finding names its SQL query: one click to its plan.
	c.Navigate(ts.url + "/apps/" + joinApp)
	c.Click(`a.finding-query`)
	if got := c.EvalString(`document.querySelector("h1").textContent`); !strings.HasPrefix(got, "Query ") ||
		c.EvalInt(`document.querySelectorAll("#plan g.plan-node").length`) == 0 {
		t.Errorf("the join-explosion finding's query link led to %q", got)
	}
	c.CheckFits("join-explosion query page", 1280)
	ts.getJSON(t, "/api/v1/applications/"+killedApp+"/allexecutors", &killed)
	c.Navigate(ts.url + "/apps/" + killedApp)
	// The executor-lost finding names the killed executor: its link opens
	// the executors page at its row.
	c.Click(`a.finding-exec`)
	if got := c.EvalString(`location.pathname + location.hash`); !strings.HasPrefix(got, "/apps/"+killedApp+"/executors#exec-") ||
		c.EvalInt(`document.querySelectorAll(location.hash).length`) != 1 {
		t.Errorf("the finding's executor link led to %q", got)
	}
	c.Navigate(ts.url + "/apps/" + killedApp)
	c.Click(`#execs-link`)
	if n := c.EvalInt(`document.querySelectorAll("#executor-list tbody tr").length`); n != len(killed) {
		t.Errorf("executors page: %d rows, the API lists %d executors", n, len(killed))
	}
	dead := 0
	for _, e := range killed {
		if e.IsActive {
			continue
		}
		dead++
		got := c.EvalString(fmt.Sprintf(`document.querySelector('#executor-list tr[data-exec=%q] td.loss').textContent`, e.ID))
		if !strings.Contains(got, e.RemoveReason) || !strings.Contains(got, "exit") {
			t.Errorf("executor %s: 'why it ended' says %q; want the loss cause, exit code and Spark's reason %q", e.ID, got, e.RemoveReason)
		}
	}
	if dead == 0 {
		t.Errorf("the executor-killed scenario has no dead executor")
	}
	// Each executor's tasks and times are the API's.
	for _, e := range killed {
		got := c.EvalString(fmt.Sprintf(`[...document.querySelector('#executor-list tr[data-exec=%q]').cells].slice(5, 9).map(td => td.textContent).join("|")`, e.ID))
		if want := fmt.Sprintf("%d|%d|%s|%s", e.CompletedTasks, e.FailedTasks, fmtMs(e.TotalDuration), fmtMs(e.TotalGCTime)); got != want {
			t.Errorf("executor %s: tasks|failed|task time|GC %s, the API says %s", e.ID, got, want)
		}
	}
	// Each executor's log links are the ones its log has (the API's
	// executorLogs: stdout and stderr on the worker's log page).
	links := 0
	for _, e := range killed {
		var shown [][2]string
		if err := json.Unmarshal(c.Eval(fmt.Sprintf(`[...document.querySelectorAll('#executor-list tr[data-exec=%q] td:last-child a')].map(a => [a.textContent, a.href])`, e.ID)), &shown); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, l := range shown {
			got[l[0]] = l[1]
		}
		if len(got) != len(e.ExecutorLogs) {
			t.Errorf("executor %s: log links %v, the API has %v", e.ID, got, e.ExecutorLogs)
		}
		for name, u := range e.ExecutorLogs {
			if got[name] != u {
				t.Errorf("executor %s: %s log links to %q, the API says %q", e.ID, name, got[name], u)
			}
			links++
		}
	}
	if links == 0 {
		t.Errorf("executors page: the executor-killed scenario's executors have no log links")
	}
	if n := c.EvalInt(`document.querySelectorAll("#memory polyline").length`); n == 0 {
		t.Errorf("executors page: no memory-over-time line")
	}
	c.Screenshot("executors")
	c.CheckFits("executors page", 1280)

	// A hostile application name stays text on every page.
	const xss = "local-1766844910796"
	for _, p := range []string{"/apps/" + xss + "/jobs", "/apps/" + xss + "/environment", "/apps/" + xss + "/executors", "/apps/" + xss + "/sql", "/apps/" + xss + "/stages/0/0"} {
		c.Navigate(ts.url + p)
		if c.EvalInt(`document.querySelectorAll("main script").length`) != 0 {
			t.Errorf("%s: a script element came from the application's name", p)
		}
		c.CheckFits(p, 1280)
	}
	if got := c.EvalString(`document.querySelector("nav.crumbs a:nth-child(2)").textContent`); got != "<script>alert('XSS')</script>" {
		t.Errorf("XSS app name in the stage page's path shown as %q", got)
	}
}

// fmtMs is how the pages print milliseconds.
func fmtMs(ms int64) string { return ui.Duration(ms) }
