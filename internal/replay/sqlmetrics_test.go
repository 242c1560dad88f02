package replay

import (
	"fmt"
	"strings"
	"testing"
)

// sqlLog writes a query (execution 1) whose plan has a sum metric (id 10)
// and a timing metric (id 11), run by job 0 over stage 0 with three tasks.
// Extra lines go after the tasks, before the job and the query end.
func sqlLog(extra ...string) string {
	var b strings.Builder
	b.WriteString(appStart)
	b.WriteString(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":1,"description":"q","details":"","physicalPlanDescription":"== Physical Plan ==","sparkPlanInfo":{"nodeName":"WholeStageCodegen (1)","simpleString":"WholeStageCodegen (1)","children":[{"nodeName":"Range","simpleString":"Range (0, 10)","children":[],"metrics":[{"name":"number of output rows","accumulatorId":10,"metricType":"sum"}]}],"metrics":[{"name":"duration","accumulatorId":11,"metricType":"timing"}]},"time":1000}` + "\n")
	b.WriteString(`{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1001,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]}],"Stage IDs":[0],"Properties":{"spark.sql.execution.id":"1"}}` + "\n")
	b.WriteString(`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]},"Properties":{}}` + "\n")
	for i, v := range []int64{4, 1, 2} {
		b.WriteString(fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":%d,"Index":%d,"Attempt":0,"Launch Time":1002,"Executor ID":"1","Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":1010,"Failed":false,"Killed":false,"Accumulables":[{"ID":10,"Name":"number of output rows","Update":"%d","Value":"0","Internal":true,"Count Failed Values":true,"Metadata":"sql"},{"ID":11,"Name":"duration","Update":%d,"Value":0,"Internal":true,"Count Failed Values":true,"Metadata":"sql"}]},"Task Metrics":{}}`, 100+i, i, v*10, v*1000) + "\n")
	}
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	b.WriteString(`{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1020,"Job Result":{"Result":"JobSucceeded"}}` + "\n")
	b.WriteString(`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":1,"time":1030,"errorMessage":""}` + "\n")
	return b.String()
}

// TestSQLMetricValues: the values the SQL tab shows are built as Spark's
// SQLAppStatusListener builds them, quirks included.
func TestSQLMetricValues(t *testing.T) {
	const timingOf3 = "total (min, med, max (stageId: taskId))\n7.0 s (1.0 s, 2.0 s, 4.0 s (stage 0.0: task 100))"
	for _, c := range []struct {
		name      string
		extra     []string
		sum, time string
	}{
		{"every task", nil, "70", timingOf3},
		// A retried index after success does not count twice.
		{"late duplicate", []string{`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":200,"Index":0,"Attempt":1,"Launch Time":1002,"Executor ID":"1","Host":"h","Locality":"PROCESS_LOCAL","Speculative":true,"Getting Result Time":0,"Finish Time":1011,"Failed":false,"Killed":false,"Accumulables":[{"ID":10,"Update":"999","Internal":true,"Metadata":"sql"}]},"Task Metrics":{}}`},
			"70", timingOf3},
		// The driver's updates are more values; one above every task's
		// makes the max "(driver)".
		{"driver updates", []string{`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates","executionId":1,"accumUpdates":[[11,5000],[11,9000],[10,3]]}`},
			"73", "total (min, med, max (stageId: taskId))\n21.0 s (1.0 s, 4.0 s, 9.0 s (driver))"},
		// Two stages tie for the max: Spark credits the one its set of the
		// query's stages lists first, 5 before 1 among 0..7 (a HashSet).
		{"tied max", tiedMax(), "70", "total (min, med, max (stageId: taskId))\n19.0 s (1.0 s, 4.0 s, 6.0 s (stage 5.0: task 305))"},
		// A later job listing stage 0 again (skipped) starts its values
		// over, as Spark does: they are gone from the query's metrics.
		{"stage listed again", []string{`{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1015,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]}],"Stage IDs":[0],"Properties":{"spark.sql.execution.id":"1"}}`,
			`{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":1016,"Job Result":{"Result":"JobSucceeded"}}`},
			"", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _, err := replayString(t, sqlLog(c.extra...), Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			x := a.SQLExecution(1)
			if x == nil {
				t.Fatal("no execution 1")
			}
			if got := x.MetricValues[10]; got != c.sum {
				t.Errorf("rows: got %q, want %q", got, c.sum)
			}
			if got := x.MetricValues[11]; got != c.time {
				t.Errorf("duration: got %q, want %q", got, c.time)
			}
			if !x.HasErrorMessage || x.ErrorMessage != "" {
				t.Errorf("error message: got %q (present %v), want present and empty", x.ErrorMessage, x.HasErrorMessage)
			}
		})
	}
}

// TestSQLMetricValuesWhileRunning: a query without its end event shows its
// values so far, as the History Server does at the end of a log.
func TestSQLMetricValuesWhileRunning(t *testing.T) {
	log := sqlLog()
	log = log[:strings.LastIndex(log, `{"Event":"SparkListenerJobEnd"`)]
	a, _, err := replayString(t, log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.SQLExecution(1).MetricValues[10]; got != "70" {
		t.Errorf("rows so far: got %q, want 70", got)
	}
}

// tiedMax is a second job of the query over stages 1..7 whose stages 1 and
// 5 each run a task of 6 s, longer than stage 0's.
func tiedMax() []string {
	var infos, ids []string
	for i := 1; i <= 7; i++ {
		infos = append(infos, fmt.Sprintf(`{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s%d","Number of Tasks":1,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]}`, i, i))
		ids = append(ids, fmt.Sprint(i))
	}
	lines := []string{`{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1011,"Stage Infos":[` + strings.Join(infos, ",") + `],"Stage IDs":[` + strings.Join(ids, ",") + `],"Properties":{"spark.sql.execution.id":"1"}}`}
	for _, st := range []int{1, 5} {
		lines = append(lines,
			fmt.Sprintf(`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]},"Properties":{}}`, st),
			fmt.Sprintf(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":%d,"Index":0,"Attempt":0,"Launch Time":1012,"Executor ID":"1","Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":1018,"Failed":false,"Killed":false,"Accumulables":[{"ID":11,"Name":"duration","Update":6000,"Value":0,"Internal":true,"Count Failed Values":true,"Metadata":"sql"}]},"Task Metrics":{}}`, st, 300+st))
	}
	return append(lines, `{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":1019,"Job Result":{"Result":"JobSucceeded"}}`)
}
