package replay

import "testing"

// The W3C trace context a caller sets as job local properties, as the
// session's spark.otel.traceparent (spark.conf.set) or as a job tag (as
// Spark 4.3 writes a session's tags) survives replay, so exporters can parent the job's span in the caller's
// trace.
func TestJobTraceContext(t *testing.T) {
	const log = `{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-1","Timestamp":1000,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1100,"Stage Infos":[],"Stage IDs":[],"Properties":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"vendor=x"}}
{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1200,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.jobGroup.id":"g"}}
{"Event":"SparkListenerJobStart","Job ID":2,"Submission Time":1300,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.otel.traceparent":"00-11111111111111111111111111111111-2222222222222222-01","spark.otel.tracestate":"k=v"}}
{"Event":"SparkListenerJobStart","Job ID":3,"Submission Time":1400,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.job.tags":"spark-session-1,traceparent=00-33333333333333333333333333333333-4444444444444444-01"}}
{"Event":"SparkListenerJobStart","Job ID":4,"Submission Time":1500,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.job.tags":"spark-session-450e1c4b-2b0f-4a43-9a63-2d1b0cfe5d0a,spark-session-450e1c4b-2b0f-4a43-9a63-2d1b0cfe5d0a-execution-root-id-2,SparkConnect_SessionTag_User__Session_af75310d-da12-41e8-93ed-ca66262cac26_Tag_sparkdx-case=tag,SparkConnect_OperationTag_User__Session_af75310d-da12-41e8-93ed-ca66262cac26_Operation_b8f35ff1-8187-4d20-abfe-d3322822c054,SparkConnect_SessionTag_User__Session_af75310d-da12-41e8-93ed-ca66262cac26_Tag_traceparent=00-a29271febe0246a3bdb8b28254b6aa40-e3842c19ea203caf-03"}}
{"Event":"SparkListenerJobStart","Job ID":5,"Submission Time":1600,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.otel.traceparent":"00-f3dabe813ea53ad1499b5db66276ce24-1eba25053525e461-03","spark.job.tags":"spark-session-da7cee78-83b3-4edd-851e-208cb29411e5-execution-root-id-1,spark-session-da7cee78-83b3-4edd-851e-208cb29411e5-thread-c1489322-0a59-417e-99f1-7cc1266d5631-traceparent=00-f3dabe813ea53ad1499b5db66276ce24-5f45c45598f911e7-03,spark-session-da7cee78-83b3-4edd-851e-208cb29411e5"}}
{"Event":"SparkListenerJobStart","Job ID":6,"Submission Time":1700,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.job.tags":"spark-session-1-thread-2-mytraceparent=00-33333333333333333333333333333333-4444444444444444-01"}}
`
	a, _, err := replayString(t, log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		job                int
		parent, traceState string
	}{
		{0, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=x"},
		{1, "", ""},
		{2, "00-11111111111111111111111111111111-2222222222222222-01", "k=v"}, // spark.conf.set in a Connect session
		{3, "00-33333333333333333333333333333333-4444444444444444-01", ""},    // SparkContext.addJobTag
		// Spark 4.3's own tag lines: a Spark Connect session's addTag, and
		// a classic session's addTag beside the submit-time
		// spark.otel.traceparent Spark copies into every SQL job (the
		// tag, one operation's, wins).
		{4, "00-a29271febe0246a3bdb8b28254b6aa40-e3842c19ea203caf-03", ""},
		{5, "00-f3dabe813ea53ad1499b5db66276ce24-5f45c45598f911e7-03", ""},
		{6, "", ""}, // another tag whose name ends in "traceparent"
	} {
		j := a.Job(tc.job)
		if j == nil {
			t.Fatalf("job %d missing", tc.job)
		}
		if j.TraceParent != tc.parent || j.TraceState != tc.traceState {
			t.Errorf("job %d: got traceparent %q tracestate %q, want %q %q", tc.job, j.TraceParent, j.TraceState, tc.parent, tc.traceState)
		}
	}
}
