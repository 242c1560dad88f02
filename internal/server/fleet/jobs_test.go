package fleet

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/store"
)

// TestJobKey: an orchestrator run that names its task keys the job by
// source, run name and task; any other application by its name and user.
func TestJobKey(t *testing.T) {
	for _, tc := range []struct {
		run  *store.Run
		want string
	}{
		{nil, "etl by alice"},
		{&store.Run{ID: "r1", Name: "airflow/daily", Source: "openlineage-root", Task: "daily.load"}, "openlineage-root:airflow/daily/daily.load"},
		{&store.Run{ID: "daily/run-7", Name: "daily", Source: "airflow-k8s", Task: "load"}, "airflow-k8s:daily/load"},
		// A run that names no task (a DAG run, an Oozie action) is many
		// jobs' run: the application's name tells them apart.
		{&store.Run{ID: "oozie-0123", Name: "oozie-0123", Source: "oozie"}, "etl by alice"},
	} {
		if got := JobKey(tc.run, "etl", "alice"); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.run, got, tc.want)
		}
	}
}
