package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// oneApp is a Source of one replayed application.
type oneApp struct {
	app *model.App
	sum fleet.AppSummary
}

func (o oneApp) Summaries() []fleet.AppSummary                             { return []fleet.AppSummary{o.sum} }
func (o oneApp) Fleet(context.Context) fleet.View                          { return fleet.View{Apps: o.Summaries()} }
func (o oneApp) Diff(context.Context, string, string) ([]byte, int, error) { return nil, 0, nil }
func (o oneApp) App(context.Context, string) (*model.App, func(), error) {
	return o.app, func() {}, nil
}

// bigApp replays the big real log (NDS power run: 41 stage attempts, 13k
// tasks, stage 23 with 2,185) into Pages of its own.
func bigApp(b *testing.B) (*Pages, string) {
	logs, err := eventlog.Open(context.Background(), sparktest.Path(b, "big", "application_1701368813061_0008.zstd"), eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a, _, _, err := pipeline.Replay(context.Background(), logs[0], replay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	src := oneApp{app: replay.GroupApps([]*model.Attempt{a})[0],
		sum: fleet.AppSummary{ID: a.AppID, AttemptID: a.AttemptID, Name: a.AppName, Status: "completed"}}
	return New(Config{Source: src}), a.AppID
}

// BenchmarkStagePageFirstView renders the big log's largest stage page
// from the model, as a first view does (no page cache): the stage's
// totals, its task quantiles, a page of 100 tasks and its charts.
func BenchmarkStagePageFirstView(b *testing.B) {
	p, id := bigApp(b)
	m := http.NewServeMux()
	m.HandleFunc("GET /apps/{id}/stages/{stage}/{attempt}", p.stagePage)
	b.ReportAllocs()
	var n int64
	cpu0 := cpuTime()
	for b.Loop() {
		w := httptest.NewRecorder()
		m.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/apps/"+id+"/stages/23/0", nil))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %.200s", w.Code, w.Body.String())
		}
		n = int64(w.Body.Len())
	}
	// The machine is shared: CPU time says what a view costs where wall
	// time says how busy the others were.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.SetBytes(n)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
