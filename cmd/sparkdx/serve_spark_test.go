package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// liveWait is how long serve may take to show what the driver shows: the
// driver flushes its event log at each stage's and job's end, serve polls
// every 100 ms.
const liveWait = 30 * time.Second

// serveLiveSpark (TestStandaloneCluster's ServeLiveSpark) runs a real
// PySpark application (testdata/live_workload.py: five stages, a task that
// fails once, an SQL query) on c, a standalone cluster of one Spark line
// (one Worker of two cores), while `sparkdx serve` tails its event log.
// Every stage the running driver reports complete is asked of the driver's
// own REST API (the live UI's /api/v1) and of serve: the stage attempt, its
// task summary and its task list must be the same documents. Before the
// application ends, every job and the SQL queries are compared with the
// driver too; after it ends, every /api/v1 document serve answers equals
// the answer of Spark's History Server over the same log.
func serveLiveSpark(t *testing.T, bin string, c *sparktest.Cluster) {
	line := c.Line
	logs := t.TempDir()
	serve := startServe(t, bin, logs, t.TempDir())
	release := filepath.Join(t.TempDir(), "release")
	program, err := filepath.Abs("testdata/live_workload.py")
	if err != nil {
		t.Fatal(err)
	}
	conf := sparktest.DefaultConf(t, logs)
	driver := "http://127.0.0.1:" + conf["spark.ui.port"]

	type result struct {
		res sparktest.Submitted
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := c.Submit(context.Background(), sparktest.Submission{Program: program, Args: []string{release}, Conf: conf})
		done <- result{res, err}
	}()
	defer os.WriteFile(release, nil, 0o644) // let the driver end whatever happens

	live := &liveCompare{t: t, line: line.Version, driver: driver, serve: serve.url, seen: map[string]time.Time{}, ok: map[string]bool{}, liveOnly: map[string]int{}}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for released := false; !released; {
		select {
		case r := <-done:
			t.Fatalf("the application ended before the test released it: %v (exit %d)\n%s\n%s", r.err, r.res.ExitCode, r.res.Output, c.Logs())
		case <-tick.C:
		}
		if live.app == "" {
			live.findApp()
			continue
		}
		live.stages()
		if live.finished() {
			live.jobsAndQueries()
			if err := os.WriteFile(release, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			released = true
		}
	}
	r := <-done
	if r.err != nil || r.res.ExitCode != 0 {
		t.Fatalf("spark-submit: %v (exit %d)\n%s", r.err, r.res.ExitCode, r.res.Output)
	}
	stageDocs := 0
	for p := range live.ok {
		if strings.Contains(p, "/stages/") {
			stageDocs++
		}
	}
	if stageDocs < 5*3 {
		t.Fatalf("compared %d stage documents with the driver, want at least 15 (5 stages × attempt, taskSummary, taskList)", stageDocs)
	}
	t.Logf("Spark %s: %d documents (%d of stages) equal to the running driver's; left out as live-only: %v",
		line.Version, len(live.ok), stageDocs, live.liveOnly)

	// The application has ended: serve, having followed it live, answers
	// as the History Server does from the finished log.
	waitFinished(t, serve, live.app)
	hs := sparktest.StartHistoryServer(t, line, logs, 1)
	passed, knownDiffs := 0, 0
	for _, path := range hstest.Endpoints(t, hs.URL) {
		wantStatus, want := hstest.Get(t, hs.URL+"/api/v1/"+path)
		gotStatus, got := hstest.Get(t, serve.url+"/api/v1/"+path)
		diffs := hstest.AnswerDiff(t, gotStatus, got, wantStatus, want)
		switch unknown := hstest.Unknown(line.Version, path, diffs); {
		case len(unknown) > 0:
			t.Errorf("%s: serve and the History Server differ:\n  %s", path, strings.Join(hstest.FirstN(unknown, 5), "\n  "))
		case len(diffs) > 0:
			knownDiffs++
		default:
			passed++
		}
	}
	t.Logf("Spark %s: %d documents equal to the History Server's, %d with known differences", line.Version, passed, knownDiffs)
}

// liveCompare compares serve with a running driver.
type liveCompare struct {
	t             *testing.T
	line          string
	driver, serve string // base URLs
	app           string
	seen          map[string]time.Time // path → when the driver first answered it final
	ok            map[string]bool      // paths compared equal
	liveOnly      map[string]int       // what only the driver could know (liveOnly), by kind
}

func (l *liveCompare) findApp() {
	var apps []struct {
		ID string `json:"id"`
	}
	if status, b, err := hstest.Fetch(l.driver + "/api/v1/applications"); err == nil && status == http.StatusOK {
		if json.Unmarshal(b, &apps) == nil && len(apps) == 1 {
			l.app = apps[0].ID
		}
	}
}

// stages compares each stage attempt the driver reports complete.
func (l *liveCompare) stages() {
	var stages []struct {
		StageID   int `json:"stageId"`
		AttemptID int `json:"attemptId"`
	}
	hstest.GetJSON(l.t, l.driver+"/api/v1/applications/"+l.app+"/stages?status=complete", &stages)
	for _, s := range stages {
		sa := fmt.Sprintf("applications/%s/stages/%d/%d", l.app, s.StageID, s.AttemptID)
		for _, p := range []string{sa, sa + "/taskSummary", sa + "/taskList?length=1000"} {
			l.compare(p)
		}
	}
}

// compare asks the driver and serve for path until they agree; after
// liveWait it reports the difference. It returns whether path is settled.
func (l *liveCompare) compare(path string) bool {
	if l.ok[path] {
		return true
	}
	first, ok := l.seen[path]
	if !ok {
		first = time.Now()
		l.seen[path] = first
	}
	_, want := hstest.Get(l.t, l.driver+"/api/v1/"+path)
	status, got, err := hstest.Fetch(l.serve + "/api/v1/" + path)
	var diffs []string
	switch {
	case err != nil:
		diffs = []string{err.Error()}
	case status != http.StatusOK:
		diffs = []string{fmt.Sprintf("serve answers %d: %s", status, hstest.FirstLine(got))}
	default:
		g, w := hstest.DecodeNorm(l.t, got), hstest.DecodeNorm(l.t, want)
		removed := liveOnly(path, g, w)
		// The differences between the Spark lines sparkdx knows of (it
		// answers as Spark 4.3) hold for a running driver too.
		diffs = hstest.Unknown(l.line, path, hstest.Diff(g, w))
		if len(diffs) == 0 {
			for _, r := range removed {
				l.liveOnly[r]++
			}
		}
	}
	if len(diffs) == 0 {
		l.ok[path] = true
		return true
	}
	if time.Since(first) > liveWait {
		l.t.Errorf("%s: serve still differs from the running driver after %s:\n  %s", path, liveWait, strings.Join(hstest.FirstN(diffs, 5), "\n  "))
		l.ok[path] = true // reported once
		return true
	}
	return false
}

// finished says whether the driver has run all three jobs and the SQL
// query, and every complete stage was compared.
func (l *liveCompare) finished() bool {
	var jobs []struct {
		Status string `json:"status"`
	}
	hstest.GetJSON(l.t, l.driver+"/api/v1/applications/"+l.app+"/jobs", &jobs)
	ended := 0
	for _, j := range jobs {
		if j.Status != "RUNNING" && j.Status != "UNKNOWN" {
			ended++
		}
	}
	if ended < 3 || ended < len(jobs) {
		return false
	}
	// Adaptive execution runs a query's last stage as a job of its own,
	// after the first ended: wait for the query to end too.
	var queries []struct {
		Status string `json:"status"`
	}
	hstest.GetJSON(l.t, l.driver+"/api/v1/applications/"+l.app+"/sql", &queries)
	if len(queries) == 0 {
		return false
	}
	for _, q := range queries {
		if q.Status == "RUNNING" {
			return false
		}
	}
	// Every stage of the ended jobs is complete by now: list them again,
	// so that none that completed since the last look is missed.
	l.stages()
	for p := range l.seen {
		if !l.ok[p] {
			return false
		}
	}
	return true
}

// jobsAndQueries compares every job and SQL query of the finished work
// while the application still runs.
func (l *liveCompare) jobsAndQueries() {
	app := "applications/" + l.app
	paths := []string{app + "/jobs", app + "/stages?status=complete", app + "/sql", app + "/environment"}
	var jobs []struct {
		JobID int `json:"jobId"`
	}
	hstest.GetJSON(l.t, l.driver+"/api/v1/"+app+"/jobs", &jobs)
	for _, j := range jobs {
		paths = append(paths, fmt.Sprintf("%s/jobs/%d", app, j.JobID))
	}
	var queries []struct {
		ID int `json:"id"`
	}
	hstest.GetJSON(l.t, l.driver+"/api/v1/"+app+"/sql", &queries)
	if len(queries) == 0 {
		l.t.Errorf("the driver lists no SQL query")
	}
	for _, q := range queries {
		paths = append(paths, fmt.Sprintf("%s/sql/%d", app, q.ID))
	}
	for deadline := time.Now().Add(liveWait); ; time.Sleep(250 * time.Millisecond) {
		settled := true
		for _, p := range paths {
			settled = l.compare(p) && settled
		}
		if settled || time.Now().After(deadline) {
			return
		}
	}
}

// liveOnly removes from the driver's answer want what a running driver
// knows and its event log cannot carry, so that serve (which reads the
// log) is held to everything else, and returns what it removed:
//   - a jar listed twice on the driver's classpath: the log writes
//     "Classpath Entries" as a JSON object, where a path is one key;
//   - an SQL node's metric that the driver holds zero values for and serve
//     does not list: executors' heartbeats carry every metric of a running
//     task, zeros included, and the driver's SQL listener keeps them; the
//     log has only the task-end updates, which leave zeros out;
//   - the driver's own memory in a stage's executor metrics: Spark's event
//     logging listener folds the driver's heartbeat peaks (stage key -1/-1)
//     into every running stage's logged executor metrics, the live
//     listener into none. So serve's stage may list a "driver" executor
//     without tasks, and each stage peak of serve must be at least the
//     driver's rather than equal to it.
func liveOnly(path string, got, want any) []string {
	var removed []string
	switch {
	case strings.Contains(path, "/stages"):
		gotStages, wantStages := documents(got), documents(want)
		for i, w := range wantStages {
			if i >= len(gotStages) {
				break
			}
			removed = append(removed, driverPeaks(gotStages[i], w)...)
		}
	case strings.HasSuffix(path, "/environment"):
		env, _ := want.(map[string]any)
		entries, _ := env["classpathEntries"].([]any)
		seen := map[string]bool{}
		kept := entries[:0:0]
		for _, e := range entries {
			k := fmt.Sprint(e)
			if seen[k] {
				removed = append(removed, "a classpath entry listed twice")
				continue
			}
			seen[k] = true
			kept = append(kept, e)
		}
		if env != nil {
			env["classpathEntries"] = kept
		}
	case strings.Contains(path, "/sql"):
		gotQ, wantQ := documents(got), documents(want)
		for i, q := range wantQ {
			if i >= len(gotQ) {
				break
			}
			gotNodes := map[string]map[string]bool{}
			for _, n := range nodes(gotQ[i]) {
				names := map[string]bool{}
				for _, m := range metrics(n) {
					names[fmt.Sprint(m["name"])] = true
				}
				gotNodes[fmt.Sprint(n["nodeId"])] = names
			}
			for _, n := range nodes(q) {
				names := gotNodes[fmt.Sprint(n["nodeId"])]
				var kept []any
				for _, m := range metrics(n) {
					name, value := fmt.Sprint(m["name"]), fmt.Sprint(m["value"])
					if !names[name] && zeroMetric(value) {
						removed = append(removed, "an SQL metric with only heartbeat zeros")
						continue
					}
					kept = append(kept, m)
				}
				if _, ok := n["metrics"]; ok {
					n["metrics"] = append([]any{}, kept...)
				}
			}
		}
	}
	return removed
}

// driverPeaks makes a stage of serve (got) comparable with the running
// driver's (want): see liveOnly.
func driverPeaks(got, want map[string]any) []string {
	var removed []string
	gotExec, _ := got["executorSummary"].(map[string]any)
	wantExec, _ := want["executorSummary"].(map[string]any)
	if d, ok := gotExec["driver"].(map[string]any); ok && wantExec != nil && wantExec["driver"] == nil &&
		fmt.Sprint(d["taskTime"]) == "0" && fmt.Sprint(d["succeededTasks"]) == "0" && fmt.Sprint(d["failedTasks"]) == "0" {
		delete(gotExec, "driver")
		removed = append(removed, "the driver as a stage's executor")
	}
	gotPeak, _ := got["peakExecutorMetrics"].(map[string]any)
	wantPeak, _ := want["peakExecutorMetrics"].(map[string]any)
	for k, w := range wantPeak {
		g, ok := gotPeak[k]
		if !ok {
			continue
		}
		gn, gerr := strconv.ParseInt(fmt.Sprint(g), 10, 64)
		wn, werr := strconv.ParseInt(fmt.Sprint(w), 10, 64)
		if gerr == nil && werr == nil && gn > wn {
			gotPeak[k] = w
			removed = append(removed, "a stage peak raised by the driver's memory")
		}
	}
	return removed
}

// documents are the objects of an answer that is one object (a stage, a
// query) or a list of them (/stages, /sql).
func documents(v any) []map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return []map[string]any{v}
	case []any:
		return objects(v)
	}
	return nil
}

func nodes(q map[string]any) []map[string]any {
	list, _ := q["nodes"].([]any)
	return objects(list)
}

func metrics(n map[string]any) []map[string]any {
	list, _ := n["metrics"].([]any)
	return objects(list)
}

func objects(list []any) []map[string]any {
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

var (
	stageTaskRef = regexp.MustCompile(`\(stage \d+\.\d+: task \d+\)`)
	numberRe     = regexp.MustCompile(`\d+(\.\d+)?`)
)

// zeroMetric says whether an SQL metric's shown value has only zeros, e.g.
// "0.0 B" or "total (min, med, max (stageId: taskId))\n0 ms (0 ms, 0 ms,
// 0 ms (stage 3.0: task 12))".
func zeroMetric(value string) bool {
	value = stageTaskRef.ReplaceAllString(value, "")
	nums := numberRe.FindAllString(value, -1)
	for _, n := range nums {
		if strings.Trim(n, "0.") != "" {
			return false
		}
	}
	return len(nums) > 0
}

// waitFinished waits for serve to list app as completed.
func waitFinished(t *testing.T, serve *serveProc, app string) {
	t.Helper()
	for deadline := time.Now().Add(liveWait); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var a struct {
			Attempts []struct {
				Completed bool `json:"completed"`
			} `json:"attempts"`
		}
		if status, b, err := hstest.Fetch(serve.url + "/api/v1/applications/" + app); err == nil && status == http.StatusOK &&
			json.Unmarshal(b, &a) == nil && len(a.Attempts) > 0 && a.Attempts[0].Completed {
			return
		}
	}
	t.Fatalf("serve does not list %s as completed after %s; output:\n%s", app, liveWait, serve.logs)
}
