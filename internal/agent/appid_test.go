package agent

import (
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestAppFromOpenFiles(t *testing.T) {
	tests := []struct {
		name    string
		targets []string
		want    string
	}{
		{name: "none", targets: []string{"socket:[123]", "/opt/spark/jars/spark-core_2.12-3.5.9.jar", "pipe:[9]"}},
		{name: "single file", targets: []string{"socket:[1]", "/tmp/events/local-1764120000000.inprogress"}, want: "local-1764120000000"},
		{name: "compressed", targets: []string{"/logs/app-20261126021518-0001.zstd.inprogress"}, want: "app-20261126021518-0001"},
		{name: "rolling", targets: []string{"/logs/eventlog_v2_spark-0a1b2c/events_3_spark-0a1b2c.lz4"}, want: "spark-0a1b2c"},
		{name: "rolling status file only", targets: []string{"/logs/eventlog_v2_app-1/appstatus_app-1.inprogress"}},
		{name: "a dot file", targets: []string{"/tmp/.inprogress"}},
		{name: "relative", targets: []string{"local-1.inprogress"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := appFromOpenFiles(tc.targets); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRealDriverAppID: a driver started by `python job.py` has its
// application id on no command line; the agent reads it from the event log
// the driver writes, so the driver's and its launcher's samples name their
// application.
func TestRealDriverAppID(t *testing.T) {
	logs := t.TempDir()
	job, app := sparktest.StartPySpark(t, sparktest.SparkLines(t)[0], "import sys\nfrom pyspark.sql import SparkSession\n"+
		"s = SparkSession.builder.master('local[1]').appName('appid').config('spark.eventLog.enabled', 'true')"+
		".config('spark.eventLog.dir', "+quote(filepath.ToSlash(logs))+").getOrCreate()\n"+
		"print('ready', s.sparkContext.applicationId, flush=True)\nsys.stdin.readline()\ns.stop()\n")
	a := realAgent(t, Config{})
	s := sample(t, a)
	driver := driverStartedBy(t, s, job.PID)
	if driver.AppID != app || driver.Launcher == nil {
		t.Errorf("driver %d: got app id %q and launcher %v, want %q and its launcher", driver.PID, driver.AppID, driver.Launcher, app)
	}
}

func quote(s string) string { return "'" + s + "'" }
