package historyapi

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestEveryEndpointAnswers walks every resource of every application in
// the shared logs: each must answer valid JSON (taskSummary may be 404
// for a stage without finished tasks, as in Spark).
func TestEveryEndpointAnswers(t *testing.T) {
	dirs := []string{sparktest.Path(t, "spark-events"), sparktest.Path(t, "extra", "historical", "spark-events"),
		filepath.Join(sparktest.Path(t, "extra", "sql-core-spark-events"))}
	calls := 0
	for _, dir := range dirs {
		api := loadDir(t, dir)
		for _, app := range api.appSet() {
			for _, a := range app.Attempts {
				base := "applications/" + app.ID
				if a.AttemptID != "" {
					base += "/" + a.AttemptID
				}
				paths := []string{base, base + "/jobs", base + "/executors", base + "/allexecutors",
					base + "/stages?details=true&withSummaries=true", base + "/storage/rdd", base + "/environment",
					base + "/allmiscellaneousprocess"}
				for _, j := range a.Jobs {
					paths = append(paths, fmt.Sprintf("%s/jobs/%d", base, j.ID))
				}
				for _, s := range a.Stages {
					sa := fmt.Sprintf("%s/stages/%d/%d", base, s.StageID, s.AttemptID)
					paths = append(paths, sa+"?withSummaries=true", sa+"/taskList?sortBy=-runtime&length=5",
						fmt.Sprintf("%s/stages/%d", base, s.StageID))
				}
				for _, r := range a.RDDs {
					paths = append(paths, fmt.Sprintf("%s/storage/rdd/%d", base, r.ID))
				}
				for _, p := range paths {
					calls++
					v, err := api.Get(p)
					if err != nil {
						t.Errorf("GET %s: %v", p, err)
						continue
					}
					if !json.Valid(Marshal(v)) {
						t.Errorf("GET %s: invalid JSON", p)
					}
				}
				for _, s := range a.Stages {
					p := fmt.Sprintf("%s/stages/%d/%d/taskSummary", base, s.StageID, s.AttemptID)
					calls++
					if _, err := api.Get(p); err != nil && (StatusOf(err) != 404 || hasSuccessfulTask(s)) {
						t.Errorf("GET %s: %v", p, err)
					}
				}
			}
		}
	}
	t.Logf("%d requests", calls)
}

func hasSuccessfulTask(s *model.StageAttempt) bool {
	for _, t := range s.Tasks {
		if t.Successful() && t.HasMetrics {
			return true
		}
	}
	return false
}
