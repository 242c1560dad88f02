package replay

import (
	"slices"
	"strings"
	"testing"
)

// TestSQLJobBeforeStart: a job that names a query before the query's start
// event (a query run inside another one starts after its parent's first
// job) belongs to it, as Spark's SQL listener creates the query on the
// job's start and the start event keeps its jobs; a query only jobs name
// is not listed.
func TestSQLJobBeforeStart(t *testing.T) {
	log := sqlLog()
	start := log[strings.Index(log, `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"`):]
	start = start[:strings.Index(start, "\n")+1]
	log = strings.Replace(log, start, "", 1)
	early := `{"Event":"SparkListenerJobStart","Job ID":7,"Submission Time":990,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.sql.execution.id":"1"}}` + "\n" +
		`{"Event":"SparkListenerJobEnd","Job ID":7,"Completion Time":995,"Job Result":{"Result":"JobSucceeded"}}` + "\n" +
		`{"Event":"SparkListenerJobStart","Job ID":8,"Submission Time":996,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.sql.execution.id":"2"}}` + "\n"
	log = strings.Replace(log, appStart, appStart+early+start, 1)
	a, _, err := replayString(t, log, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	x := a.SQLExecution(1)
	if x == nil {
		t.Fatal("no execution 1")
	}
	if want := []int{7, 0}; !slices.Equal(x.JobIDs, want) {
		t.Errorf("execution 1 jobs: got %v, want %v", x.JobIDs, want)
	}
	if x.Description != "q" || x.StartTime != 1000 || x.EndTime != 1030 {
		t.Errorf("execution 1: got description %q, start %d, end %d, want q, 1000, 1030", x.Description, x.StartTime, x.EndTime)
	}
	// The job before the start leaves the metrics of the query's own job whole.
	if got := x.MetricValues[10]; got != "70" {
		t.Errorf("rows: got %q, want 70", got)
	}
	if got := a.SQLExecution(2); got != nil || len(a.SQL) != 1 {
		t.Errorf("a query no start event announced: got %d queries (execution 2: %v), want 1 and none", len(a.SQL), got)
	}
}

// TestSQLCustomMetricValue: a DataSource V2 custom metric whose class the
// History Server cannot load shows "N/A" whatever its tasks' values.
func TestSQLCustomMetricValue(t *testing.T) {
	log := strings.Replace(sqlLog(), `"metricType":"timing"`, `"metricType":"v2Custom_com.example.ScanMetrics"`, 1)
	a, _, err := replayString(t, log, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	x := a.SQLExecution(1)
	if got := x.MetricValues[11]; got != "N/A" {
		t.Errorf("custom metric: got %q, want N/A", got)
	}
	if got := x.MetricValues[10]; got != "70" {
		t.Errorf("rows: got %q, want 70", got)
	}
}
