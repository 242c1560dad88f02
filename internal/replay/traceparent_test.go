package replay

import "testing"

// The W3C trace context a caller sets as job local properties, as the
// session's spark.otel.traceparent (spark.conf.set) or as a job tag
// survives replay, so exporters can parent the job's span in the caller's
// trace.
func TestJobTraceContext(t *testing.T) {
	const log = `{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-1","Timestamp":1000,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1100,"Stage Infos":[],"Stage IDs":[],"Properties":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"vendor=x"}}
{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1200,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.jobGroup.id":"g"}}
{"Event":"SparkListenerJobStart","Job ID":2,"Submission Time":1300,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.otel.traceparent":"00-11111111111111111111111111111111-2222222222222222-01","spark.otel.tracestate":"k=v"}}
{"Event":"SparkListenerJobStart","Job ID":3,"Submission Time":1400,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.job.tags":"spark-session-1,traceparent=00-33333333333333333333333333333333-4444444444444444-01"}}
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
		{3, "00-33333333333333333333333333333333-4444444444444444-01", ""},    // addTag
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
