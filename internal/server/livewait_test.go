package server

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/fleet"
)

// TestLiveResourceWait: an application on a cluster that has waited 400 s
// for its first executor writes nothing while it waits, yet serve's
// /metrics and fleet list show the wait so far, growing with the clock, so
// SparkLongResourceWait (spark_resource_wait_seconds > 600) can fire while
// the application still waits.
func TestLiveResourceWait(t *testing.T) {
	dir := t.TempDir()
	start := time.Now().Add(-400 * time.Second).UnixMilli()
	lines := fmt.Sprintf(`{"Event":"SparkListenerLogStart","Spark Version":"4.3.0"}
{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{"Java Version":"17"},"Spark Properties":{"spark.master":"spark://master:7077","spark.app.name":"waits"},"System Properties":{},"Classpath Entries":{}}
{"Event":"SparkListenerApplicationStart","App Name":"waits","App ID":"app-20261125000000-0001","Timestamp":%d,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":%d,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"count at job.py:3","Number of Tasks":4,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]}],"Stage IDs":[0],"Properties":{}}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"count at job.py:3","Number of Tasks":4,"RDD Info":[],"Parent IDs":[],"Details":"","Submission Time":%d,"Accumulables":[]},"Properties":{}}
`, start, start+2000, start+2000)
	if err := os.WriteFile(filepath.Join(dir, "app-20261125000000-0001.inprogress"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, t.TempDir(), "", dir)
	var clock atomic.Int64 // the server's clock, moved by the test
	clock.Store(time.Now().UnixMilli())
	ts.srv.cfg.Now = func() time.Time { return time.UnixMilli(clock.Load()) }
	ts.waitIdle(t)
	wait := func() float64 {
		t.Helper()
		_, body := ts.get(t, "/metrics")
		m := regexp.MustCompile(`spark_resource_wait_seconds\{[^}]*app_id="app-20261125000000-0001"[^}]*\} (\S+)`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("no spark_resource_wait_seconds for the waiting app in /metrics")
		}
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := wait()
	if first < 399 || first > 460 {
		t.Errorf("resource wait %.0f s, want the 400 s waited so far", first)
	}
	var apps []fleet.AppSummary
	ts.getJSON(t, "/api/sparkdx/v1/apps", &apps)
	if len(apps) != 1 || apps[0].Status != "running" || apps[0].DurationMs < 399_000 {
		t.Errorf("fleet list: %+v; want one running app of 400 s or more", apps)
	}
	// Ten minutes pass and no event comes: the wait has grown with the
	// clock past the alert's 600 s.
	// (A few seconds of slack: under load the first analysis can run a
	// moment after the clock was read, on the server's real clock.)
	clock.Add(600_000)
	if later := wait(); later < first+595 || later <= 600 {
		t.Errorf("resource wait %.1f s, then %.1f s ten minutes later; want it to grow with the clock past 600 s", first, later)
	}
	// The alert joins the wait with its share of the wall time (over a
	// quarter): the whole of it so far.
	_, body := ts.get(t, "/metrics")
	m := regexp.MustCompile(`spark_phase_breakdown_ratio\{[^}]*app_id="app-20261125000000-0001"[^}]*phase="resource_wait"[^}]*\} (\S+)`).FindSubmatch(body)
	if m == nil {
		t.Fatal("no spark_phase_breakdown_ratio{phase=\"resource_wait\"} for the waiting app in /metrics")
	}
	if ratio, _ := strconv.ParseFloat(string(m[1]), 64); ratio < 0.99 {
		t.Errorf("resource wait ratio %v, want 1: the application has done nothing but wait", ratio)
	}
}
