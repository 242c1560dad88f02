package historyapi

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// FuzzGet: no request path or query may make the API panic.
func FuzzGet(f *testing.F) {
	for _, p := range []string{
		"applications?status=completed&minDate=2015-02-10", "applications/local-1430917381534/stages/0/0/taskList?offset=-3&length=9&sortBy=-runtime",
		"applications/local-1430917381534/stages/0/0/taskSummary?quantiles=0.5,1", "applications/local-1422981780767/stages/1?details=true&taskStatus=failed",
		"applications/app-20200706201101-0003/stages/2/0?withSummaries=true", "applications/local-1426533911241/1/jobs",
		"applications/local-1422981780767/storage/rdd/0", "applications/application_1555004656427_0144/executors",
	} {
		f.Add(p)
	}
	api := New(nil)
	f.Fuzz(func(t *testing.T, path string) {
		if api.appSet() == nil {
			api.SetApps(loadDir(t, sparktest.Path(t, "spark-events")).appSet())
		}
		if v, err := api.Get(path); err == nil {
			Marshal(v)
		}
	})
}
