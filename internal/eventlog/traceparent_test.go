package eventlog

import "testing"

// The W3C trace context a caller sets as job local properties survives
// replay, so exporters can parent the job's span in the caller's trace.
func TestJobTraceContext(t *testing.T) {
	const log = `{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-1","Timestamp":1000,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1100,"Stage Infos":[],"Stage IDs":[],"Properties":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"vendor=x"}}
{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1200,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.jobGroup.id":"g"}}
`
	a, _, err := replayString(t, log, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		job                int
		parent, traceState string
	}{
		{0, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=x"},
		{1, "", ""},
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
