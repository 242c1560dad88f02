package eventlog

import (
	"testing"

	"github.com/valyala/fastjson"
)

// TestEndReasonText checks the errorMessage texts Spark's
// TaskEndReason.toErrorString gives.
func TestEndReasonText(t *testing.T) {
	cases := []struct{ json, msg, kill string }{
		{`{"Reason":"Success"}`, "", ""},
		{`{"Reason":"TaskKilled","Kill Reason":"another attempt succeeded"}`, "another attempt succeeded", "another attempt succeeded"},
		{`{"Reason":"TaskKilled"}`, "unknown reason", "unknown reason"},
		{`{"Reason":"ExecutorLostFailure","Executor ID":"7","Exit Caused By App":false,"Loss Reason":"Container killed"}`,
			"ExecutorLostFailure (executor 7 exited unrelated to the running tasks) Reason: Container killed", ""},
		{`{"Reason":"ExecutorLostFailure","Executor ID":"7"}`, "ExecutorLostFailure (executor 7 exited caused by one of the running tasks)", ""},
		{`{"Reason":"FetchFailed","Block Manager Address":{"Executor ID":"1","Host":"h","Port":7337},"Shuffle ID":3,"Map ID":5,"Reduce ID":2,"Message":"boom"}`,
			"FetchFailed(BlockManagerId(1, h, 7337, None), shuffleId=3, mapIndex=Unknown, mapId=5, reduceId=2, message=\nboom\n)", ""},
		{`{"Reason":"TaskCommitDenied","Job ID":1,"Partition ID":2,"Attempt Number":0}`,
			"TaskCommitDenied (Driver denied task commit) for job: 1, partition: 2, attemptNumber: 0",
			"TaskCommitDenied (Driver denied task commit) for job: 1, partition: 2, attemptNumber: 0"},
		{`{"Reason":"Resubmitted"}`, "Resubmitted (resubmitted due to lost executor)", ""},
		{`{"Reason":"TaskResultLost"}`, "TaskResultLost (result lost from block manager)", ""},
		{`{"Reason":"SomethingNew"}`, "UnknownReason", ""},
	}
	for _, c := range cases {
		v := fastjson.MustParse(c.json)
		r := endReason(v)
		if r.ErrorMessage != c.msg || r.KillReason != c.kill {
			t.Errorf("%s: got message %q kill %q, want %q %q", c.json, r.ErrorMessage, r.KillReason, c.msg, c.kill)
		}
	}
}
