package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/sparkdx/sparkdx/internal/model"
)

// TaskMetricRow is one metric of a task page.
type TaskMetricRow struct {
	Group, Name string
	Value       int64
}

// taskPage shows one task attempt: where and how it ran, every metric
// Spark recorded for it (named as the History Server API names them), the
// executor's peaks while it ran, and its error.
func (s *Pages) taskPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	sid, att, ok := stagePath(r)
	tid, err := strconv.ParseInt(r.PathValue("task"), 10, 64)
	var task *model.Task
	if ok && err == nil && d.attempt != nil {
		if st := d.attempt.Stage(sid, att); st != nil {
			for _, t := range st.Tasks {
				if t.TaskID == tid {
					task = t
				}
			}
		}
	}
	if task == nil {
		s.errorPage(w, http.StatusNotFound, "Unknown task", "No task "+r.PathValue("task")+" in stage "+r.PathValue("stage")+"."+r.PathValue("attempt")+".")
		return
	}
	var rows []TaskMetricRow
	if task.HasMetrics {
		tm := task.Metrics()
		var walk func(g *model.MetricGroup, group string)
		walk = func(g *model.MetricGroup, group string) {
			for _, f := range g.Fields {
				if f.API != "" {
					rows = append(rows, TaskMetricRow{Group: group, Name: f.API, Value: *f.Of(&tm)})
				}
			}
			for _, sub := range g.Groups {
				walk(sub, sub.API)
			}
		}
		walk(model.TaskMetricFields(), "")
	}
	var peaks [][2]any
	if task.ExecMetrics() != nil {
		names := model.ExecutorMetricNames()
		for i, v := range task.ExecMetrics().Values {
			if v != 0 {
				peaks = append(peaks, [2]any{names[i], v})
			}
		}
	}
	data := map[string]any{"Title": fmt.Sprintf("Task %d", tid), "Live": sum.Status == "running", "Sum": sum,
		"Task": task, "StageID": sid, "StageAttempt": att, "Metrics": rows, "Peaks": peaks,
		"Doc": d.api.Task(d.attempt, task)} // the task as the API lists it (status, duration, error text)
	s.render(w, http.StatusOK, "task.html", data)
}
