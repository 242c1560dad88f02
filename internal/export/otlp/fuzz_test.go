package otlp

import (
	"context"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// fuzzLog is a small application: one job of one stage with two tasks.
const fuzzLog = `{"Event":"SparkListenerApplicationStart","App Name":"f","App ID":"app-f","Timestamp":1000,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1100,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":2,"RDD Info":[],"Parent IDs":[],"Details":""}],"Stage IDs":[0],"Properties":{}}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":2,"RDD Info":[],"Parent IDs":[],"Details":"","Submission Time":1150},"Properties":{}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1200,"Executor ID":"driver","Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":0,"Failed":false,"Killed":false,"Accumulables":[]}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1200,"Executor ID":"driver","Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":1500,"Failed":false,"Killed":false,"Accumulables":[]}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":2,"RDD Info":[],"Parent IDs":[],"Details":"","Submission Time":1150,"Completion Time":1600}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1700,"Job Result":{"Result":"JobSucceeded"}}
{"Event":"SparkListenerApplicationEnd","Timestamp":2000}
`

// FuzzTraceParent feeds arbitrary traceparent and tracestate values, as a
// Spark property and as a job property, through ExportApp: it must never
// fail or panic, and the application span must join the traceparent's
// trace exactly when the value parses.
func FuzzTraceParent(f *testing.F) {
	f.Add(appParent, "", jobParent, "vendor=x")
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "a=b,c=d", "", "")
	f.Add("00-00000000000000000000000000000000-00f067aa0ba902b7-01", "", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "")
	f.Add("garbage", "=", "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra", "x")
	f.Fuzz(func(t *testing.T, appTP, appTS, jobTP, jobTS string) {
		a, _, err := replay.Read(context.Background(), strings.NewReader(fuzzLog), replay.Options{Name: "fuzz.log"})
		if err != nil {
			t.Fatal(err)
		}
		a.Env.SparkProperties = append(a.Env.SparkProperties, [2]string{propTraceParent, appTP}, [2]string{propTraceState, appTS})
		a.Jobs[0].TraceParent, a.Jobs[0].TraceState = jobTP, jobTS
		r := analyze.Analyze(a)
		e, spans, _ := newTestExporter(t, Config{TaskSamplingRatio: 1})
		if err := e.ExportApp(context.Background(), a, r); err != nil {
			t.Fatal(err)
		}
		parent, ok := remoteParent(appTP, appTS)
		tree := treeOf(spans.GetSpans())
		apps := tree.named(spanApp)
		if ok && !parent.IsSampled() {
			if len(apps) > 0 {
				t.Fatalf("unsampled traceparent %q: got an application span", appTP)
			}
			return
		}
		if len(apps) != 1 {
			t.Fatalf("got %d application spans, want 1", len(apps))
		}
		if ok && apps[0].SpanContext.TraceID() != parent.TraceID() {
			t.Errorf("traceparent %q: application in trace %s", appTP, apps[0].SpanContext.TraceID())
		}
		if !ok && apps[0].Parent.IsValid() {
			t.Errorf("unparsable traceparent %q: application has parent %s", appTP, apps[0].Parent.SpanID())
		}
	})
}
