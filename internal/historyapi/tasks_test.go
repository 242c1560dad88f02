package historyapi

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TestErrorMessage: the executor-loss and fetch-failure texts Spark's
// TaskEndReason.toErrorString gives, rendered from the end reason's fields.
func TestErrorMessage(t *testing.T) {
	cases := []struct {
		task model.Task
		want string
	}{
		{model.Task{Extra: &model.TaskExtra{Loss: &model.ExecutorLoss{ExecutorID: "7", Reason: "Container killed", HasReason: true}}},
			"ExecutorLostFailure (executor 7 exited unrelated to the running tasks) Reason: Container killed"},
		{model.Task{Extra: &model.TaskExtra{Loss: &model.ExecutorLoss{ExecutorID: "7", CausedByApp: true}}},
			"ExecutorLostFailure (executor 7 exited caused by one of the running tasks)"},
		{model.Task{Extra: &model.TaskExtra{Loss: &model.ExecutorLoss{CausedByApp: true}}},
			"ExecutorLostFailure (executor Unknown exited caused by one of the running tasks)"},
		{model.Task{Extra: &model.TaskExtra{Fetch: &model.FetchFailure{HasAddress: true, ExecutorID: "1", Host: "h", Port: 7337, ShuffleID: 3, MapID: 5, ReduceID: 2, Message: "boom"}}},
			"FetchFailed(BlockManagerId(1, h, 7337, None), shuffleId=3, mapIndex=Unknown, mapId=5, reduceId=2, message=\nboom\n)"},
		{model.Task{Extra: &model.TaskExtra{Fetch: &model.FetchFailure{ShuffleID: 3, MapID: -1, MapIndex: -1, HasMapIndex: true, ReduceID: 2, Message: "missing"}}},
			"FetchFailed(null, shuffleId=3, mapIndex=-1, mapId=-1, reduceId=2, message=\nmissing\n)"},
		{model.Task{Extra: &model.TaskExtra{ErrorMessage: "java.lang.RuntimeException: boom\n\tat X.y(X.java:1)"}}, "java.lang.RuntimeException: boom\n\tat X.y(X.java:1)"},
	}
	for _, c := range cases {
		if got := errorMessage(&c.task); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
