package sparkevent

import (
	"reflect"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/valyala/fastjson"
)

// TestEndReasonText checks the errorMessage texts Spark's
// TaskEndReason.toErrorString gives.
func TestEndReasonText(t *testing.T) {
	cases := []struct{ json, msg, kill string }{
		{`{"Reason":"Success"}`, "", ""},
		{`{"Reason":"TaskKilled","Kill Reason":"another attempt succeeded"}`, "another attempt succeeded", "another attempt succeeded"},
		{`{"Reason":"TaskKilled"}`, "unknown reason", "unknown reason"},
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

// TestEndReasonFields: an executor loss and a fetch failure keep the
// event's fields (the History Server API renders Spark's text from them).
func TestEndReasonFields(t *testing.T) {
	cases := []struct {
		json  string
		loss  *model.ExecutorLoss
		fetch *model.FetchFailure
	}{
		{`{"Reason":"ExecutorLostFailure","Executor ID":"7","Exit Caused By App":false,"Loss Reason":"Container killed"}`,
			&model.ExecutorLoss{ExecutorID: "7", Reason: "Container killed", HasReason: true}, nil},
		{`{"Reason":"ExecutorLostFailure","Executor ID":"7"}`, &model.ExecutorLoss{ExecutorID: "7", CausedByApp: true}, nil},
		{`{"Reason":"ExecutorLostFailure"}`, &model.ExecutorLoss{CausedByApp: true}, nil},
		{`{"Reason":"FetchFailed","Block Manager Address":{"Executor ID":"1","Host":"h","Port":7337},"Shuffle ID":3,"Map ID":5,"Reduce ID":2,"Message":"boom"}`,
			nil, &model.FetchFailure{HasAddress: true, ExecutorID: "1", Host: "h", Port: 7337, ShuffleID: 3, MapID: 5, ReduceID: 2, Message: "boom"}},
		{`{"Reason":"FetchFailed","Block Manager Address":null,"Shuffle ID":3,"Map ID":-1,"Map Index":-1,"Reduce ID":2,"Message":"missing"}`,
			nil, &model.FetchFailure{ShuffleID: 3, MapID: -1, MapIndex: -1, HasMapIndex: true, ReduceID: 2, Message: "missing"}},
	}
	for _, c := range cases {
		r := endReason(fastjson.MustParse(c.json))
		if !reflect.DeepEqual(r.Loss, c.loss) || !reflect.DeepEqual(r.Fetch, c.fetch) || r.ErrorMessage != "" {
			t.Errorf("%s: got loss %+v fetch %+v message %q; want %+v %+v and no text", c.json, r.Loss, r.Fetch, r.ErrorMessage, c.loss, c.fetch)
		}
	}
}
