package web

import (
	"encoding/json"
	"net/http"
	"sort"

	"github.com/sparkdx/sparkdx/internal/historyapi"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// executorDoc is the part of the API's ExecutorSummary the executors page
// shows.
type executorDoc struct {
	ID                string            `json:"id"`
	HostPort          string            `json:"hostPort"`
	IsActive          bool              `json:"isActive"`
	TotalCores        int               `json:"totalCores"`
	FailedTasks       int               `json:"failedTasks"`
	CompletedTasks    int               `json:"completedTasks"`
	TotalDuration     int64             `json:"totalDuration"`
	TotalGCTime       int64             `json:"totalGCTime"`
	TotalInputBytes   int64             `json:"totalInputBytes"`
	TotalShuffleRead  int64             `json:"totalShuffleRead"`
	TotalShuffleWrite int64             `json:"totalShuffleWrite"`
	MaxMemory         int64             `json:"maxMemory"`
	AddTime           string            `json:"addTime"`
	RemoveTime        string            `json:"removeTime"`
	RemoveReason      string            `json:"removeReason"`
	ExecutorLogs      map[string]string `json:"executorLogs"`
	Peak              map[string]int64  `json:"peakMemoryMetrics"`
	// From the analysis: why a lost executor ended.
	LossCause string `json:"-"`
	ExitCode  *int   `json:"-"`
}

// LogLinks are the executor's log links in name order.
func (e executorDoc) LogLinks() [][2]string {
	var out [][2]string
	for name, u := range e.ExecutorLogs {
		out = append(out, [2]string{name, u})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
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
	var execs []executorDoc
	if err := d.get("/allexecutors", &execs); err != nil {
		s.errorPage(w, historyapi.StatusOf(err), "Cannot list the executors", err.Error())
		return
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
	// Memory over time: the app page's chart (executor peaks at stage ends,
	// or the agent's samples when it sent some).
	var memory *memChart
	if v, err := s.appView(r.Context(), sum); err == nil {
		v.withSamples(s.memorySamples(sum.ID))
		memory = v.Memory
	}
	s.render(w, http.StatusOK, "executors.html", map[string]any{"Title": "Executors · " + sum.Name,
		"Live": sum.Status == "running", "Sum": sum, "Executors": execs, "Memory": memory})
}
