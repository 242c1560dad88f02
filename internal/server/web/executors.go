package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// executorDoc is an executor as the executors page shows it: the API's
// ExecutorSummary and, from the analysis, why a lost executor ended.
type executorDoc struct {
	historyapi.ExecutorSummary
	LossCause string
	ExitCode  *int
}

// LogLinks are the executor's log links in name order.
func (e executorDoc) LogLinks() [][2]string {
	out := slices.Clone(e.ExecutorLogs)
	sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// GCShare is GC time over task time, in percent.
func (e executorDoc) GCShare() float64 {
	if e.TotalDuration <= 0 {
		return 0
	}
	return float64(e.TotalGCTime) * 100 / float64(e.TotalDuration)
}

// executorsPage lists every executor, active and dead, with its tasks,
// memory peaks, logs and — for a lost one — why it ended.
func (s *Pages) executorsPage(w http.ResponseWriter, r *http.Request) {
	d, sum, release, ok := s.docsPage(w, r)
	if !ok {
		return
	}
	defer release()
	if d.attempt == nil {
		s.errorPage(w, http.StatusNotFound, "Cannot list the executors", "no such attempt: "+d.base)
		return
	}
	var execs []executorDoc
	for _, x := range historyapi.Executors(d.attempt, false, s.cfg.Now().UnixMilli()) {
		execs = append(execs, executorDoc{ExecutorSummary: x})
	}
	// The analysis says why each executor ended (exit codes, OOM kills).
	if b, err := s.cfg.Ingest.Report(r.Context(), sum.Key()); err == nil {
		var rep struct {
			ExecutorDetails []reportv1.ExecutorDetail `json:"executorDetails"`
		}
		if json.Unmarshal(b, &rep) == nil {
			byID := map[string]reportv1.ExecutorDetail{}
			for _, x := range rep.ExecutorDetails {
				byID[x.ID] = x
			}
			for i := range execs {
				if x, ok := byID[execs[i].ID]; ok {
					execs[i].LossCause, execs[i].ExitCode = x.LossCause, x.ExitCode
				}
			}
		}
	}
	// Memory over time: the app page's chart (executor peaks at task and
	// stage ends, or the agent's samples when it sent some).
	var memory *memChart
	if v, err := s.appView(r.Context(), sum); err == nil {
		v.withSamples(s.memorySamples(sum.ID))
		memory = v.Memory
	}
	s.render(w, http.StatusOK, "executors.html", map[string]any{"Title": "Executors · " + sum.Name,
		"Live": sum.Status == "running", "Sum": sum, "Executors": execs, "Memory": memory,
		"Flame": s.executorFlames(sum.ID)})
}
