package replay

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/redact"
	"github.com/sparkdx/sparkdx/internal/sparkevent"
)

// secretLog carries a secret in every place an event may: properties (the
// app's regex among them), a cloud key, a JDBC URL, a job description, a
// SQL text, a plan, a changed SQL setting, a task's and a stage's failure
// and a failed job's and query's error.
const secretLog = `{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{"Java Version":"17"},"Spark Properties":{"spark.redaction.regex":"(?i)internal[.]id","spark.internal.id":"42","spark.app.name":"etl","spark.driver.extraJavaOptions":"-Dx=1"},"Hadoop Properties":{"fs.s3a.secret.key":"S3SECRET","fs.azure.account.key.acct.blob.core.windows.net":"AZUREKEY","javax.jdo.option.ConnectionURL":"jdbc:mysql://hive:HIVEPASS@db/metastore"},"System Properties":{},"Classpath Entries":{}}
{"Event":"SparkListenerApplicationStart","App Name":"etl","App ID":"app-1","Timestamp":1,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":2,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"RDD Info":[],"Parent IDs":[]}],"Stage IDs":[0],"Properties":{"spark.job.description":"load with password=JOBPASS"}}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"RDD Info":[],"Parent IDs":[]},"Properties":{"spark.job.description":"load with password=JOBPASS"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":1,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY","Speculative":false,"Getting Result Time":0,"Finish Time":0,"Failed":false,"Killed":false,"Accumulables":[]}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"ExceptionFailure","Class Name":"java.sql.SQLException","Description":"cannot reach jdbc:postgresql://etl:TASKPASS@db/x","Stack Trace":[]},"Task Info":{"Task ID":1,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY","Speculative":false,"Getting Result Time":0,"Finish Time":4,"Failed":true,"Killed":false,"Accumulables":[]}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"RDD Info":[],"Parent IDs":[],"Submission Time":2,"Completion Time":5,"Failure Reason":"Job aborted: token=STAGETOKEN"}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":6,"Job Result":{"Result":"JobFailed","Exception":{"Message":"aborted: secret=JOBSECRET"}}}
{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":0,"description":"CREATE TABLE t USING jdbc OPTIONS (password 'SQLPASS')","details":"","physicalPlanDescription":"Scan JDBCRelation(jdbc:mysql://u:PLANPASS@h/db) [token#1]","sparkPlanInfo":{"nodeName":"Scan","simpleString":"Scan jdbc:mysql://u:NODEPASS@h/db","children":[],"metrics":[]},"time":7,"modifiedConfigs":{"spark.sql.catalog.x.password":"CONFPASS","spark.sql.shuffle.partitions":"4"}}
{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":0,"time":8,"errorMessage":"failed with api_key: QUERYKEY"}
`

// TestReplayRedacts: no secret of secretLog reaches the model, and what is
// not secret is kept.
func TestReplayRedacts(t *testing.T) {
	a, _, err := replayString(t, secretLog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dump := modelText(a)
	for _, secret := range []string{"42", "S3SECRET", "AZUREKEY", "HIVEPASS", "JOBPASS", "TASKPASS", "STAGETOKEN",
		"JOBSECRET", "SQLPASS", "PLANPASS", "NODEPASS", "CONFPASS", "QUERYKEY"} {
		if strings.Contains(dump, secret) {
			t.Errorf("%s reached the model", secret)
		}
	}
	for _, kept := range []string{"etl", "-Dx=1", "jdbc:mysql://hive:" + redact.Replacement + "@db/metastore",
		"load with password=" + redact.Replacement, "[token#1]", "spark.sql.shuffle.partitions=4"} {
		if !strings.Contains(dump, kept) {
			t.Errorf("%q is missing from the model", kept)
		}
	}

	// A server's own regex applies too (serve --redaction-regex).
	rules, err := redact.New("(?i)app[.]name")
	if err != nil {
		t.Fatal(err)
	}
	a, _, err = replayString(t, secretLog, Options{Redaction: rules})
	if err != nil {
		t.Fatal(err)
	}
	if got := prop(a.Env.SparkProperties, "spark.app.name"); got != redact.Replacement {
		t.Errorf("spark.app.name under the server's regex: got %q, want redacted", got)
	}
}

// TestTailRedacts: a tail, fed the same log in pieces, keeps no secret.
func TestTailRedacts(t *testing.T) {
	tail := NewTail(Options{Name: "secret"})
	for _, line := range strings.SplitAfter(secretLog, "\n") {
		if err := tail.Apply(tail.Decode([]byte(line))); err != nil {
			t.Fatal(err)
		}
	}
	a, err := tail.Model()
	if err != nil {
		t.Fatal(err)
	}
	dump := modelText(a)
	for _, secret := range []string{"S3SECRET", "AZUREKEY", "HIVEPASS", "JOBPASS", "TASKPASS", "SQLPASS", "QUERYKEY"} {
		if strings.Contains(dump, secret) {
			t.Errorf("%s reached the tailed model", secret)
		}
	}
}

func prop(ps [][2]string, key string) string {
	for _, p := range ps {
		if p[0] == key {
			return p[1]
		}
	}
	return ""
}

// modelText is every string of the model a reader may see, for searching.
func modelText(a *model.Attempt) string {
	var b strings.Builder
	b.WriteString(a.AppName + "\n")
	for _, ps := range [][][2]string{a.Env.SparkProperties, a.Env.HadoopProperties, a.Env.SystemProperties} {
		for _, p := range ps {
			b.WriteString(p[0] + "=" + p[1] + "\n")
		}
	}
	for _, j := range a.Jobs {
		b.WriteString(j.Description + "\n" + j.ErrorMessage + "\n")
	}
	for _, s := range a.Stages {
		b.WriteString(s.Description + "\n" + s.FailureReason + "\n")
		for _, task := range s.Tasks {
			b.WriteString(task.ErrorMessage() + "\n")
		}
	}
	for _, x := range a.SQL {
		b.WriteString(x.Description + "\n" + x.Details + "\n" + x.PhysicalPlan + "\n" + x.ErrorMessage + "\n")
		if x.Plan != nil {
			b.WriteString(x.Plan.SimpleString + "\n")
		}
		for _, p := range x.ModifiedConfigs {
			b.WriteString(p[0] + "=" + p[1] + "\n")
		}
	}
	return b.String()
}

// BenchmarkRedactEvents is the redaction's share of a replay: every event
// of the big log (decoded once, outside the timing) through redactEvent,
// reported per event. Compare ns/event with BenchmarkReplay's time per
// event (its ns/op ÷ 26,214).
func BenchmarkRedactEvents(b *testing.B) {
	d := sparkevent.NewDecoder()
	var events []sparkevent.Event
	for ln := range bytes.Lines(bigLog(b)) {
		ev, err := d.DecodeLine(bytes.TrimSuffix(ln, []byte{'\n'}))
		if err != nil {
			b.Fatal(err)
		}
		events = append(events, ev)
	}
	r := redact.Default()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, ev := range events {
			redactEvent(r, ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}
