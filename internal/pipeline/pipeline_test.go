package pipeline

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestReplayAndDiagnose(t *testing.T) {
	ctx := context.Background()
	path := sparktest.Path(t, "spark-events", "application_1553914137147_0018")
	logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, src, stats, err := Replay(ctx, logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if src.Log.Path != path || src.Log.Events != stats.Events || src.Log.Bytes != logs[0].Size || src.ModTime != logs[0].ModTime {
		t.Errorf("source %+v does not describe %s (%d events, %d bytes)", src, path, stats.Events, logs[0].Size)
	}
	d := Diagnose(a, nil, src, nil)
	if d.Report.App.ID != "application_1553914137147_0018" || d.Report.Log.Path != path || len(d.Findings) != len(d.Report.Findings) {
		t.Errorf("report of %s: app %q, log %q, %d findings for %d rule results", path, d.Report.App.ID, d.Report.Log.Path,
			len(d.Report.Findings), len(d.Findings))
	}
	// An analysis given in advance (serve keeps one per finished log) gives
	// the same diagnosis.
	again := Diagnose(a, analyze.Analyze(a), src, nil)
	if !reflect.DeepEqual(again.Report, d.Report) {
		t.Error("a diagnosis from a given analysis differs from one that analyses")
	}
}

func TestReplayErrors(t *testing.T) {
	ctx := context.Background()
	open := func(body string) *eventlog.Log {
		l, err := eventlog.OpenStream("piped.log", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	_, _, _, err := Replay(ctx, open(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`+"\n"), replay.Options{})
	if !errors.Is(err, ErrNotSpark) || !strings.Contains(err.Error(), "piped.log") {
		t.Errorf("no application start: got %v, want ErrNotSpark naming the log", err)
	}
	start := `{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-1","Timestamp":1000,"User":"u"}` + "\n"
	_, _, _, err = Replay(ctx, open(start+"{not json\n"), replay.Options{Strict: true})
	if le, ok := errors.AsType[*replay.LineError](err); !ok || le.Name != "piped.log" || le.Line != 2 {
		t.Errorf("strict bad line: got %v, want a LineError naming piped.log line 2", err)
	}
	a, src, _, err := Replay(ctx, open(start+"{not json\n"), replay.Options{})
	if err != nil || a.AppID != "app-1" || src.Log.BadLines != 1 {
		t.Errorf("lenient bad line: got %v, app %v, %d bad lines; want app-1 with one bad line counted", err, a, src.Log.BadLines)
	}
	// The log-aware rule sees the source: a log written a second ago is
	// an app still running (info), a finished file without an end with a
	// job still open a driver that died mid-job (critical), one whose jobs
	// all ended a driver that stopped between jobs (info).
	severity := func(a *model.Attempt, src Source) diagnose.Severity {
		for _, f := range Diagnose(a, nil, src, nil).Findings {
			if f.Rule == "incomplete-app" {
				return f.Severity
			}
		}
		return diagnose.None
	}
	jobStart := `{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":2000,"Stage Infos":[],"Stage IDs":[]}` + "\n"
	jobEnd := `{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":3000,"Job Result":{"Result":"JobSucceeded"}}` + "\n"
	running, src, _, err := Replay(ctx, open(start+jobStart), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ended, _, _, err := Replay(ctx, open(start+jobStart+jobEnd), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src.Now, src.ModTime = time.UnixMilli(1_000_000), time.UnixMilli(999_000)
	if got := severity(running, src); got != diagnose.Critical {
		t.Errorf("finished log without an end, a job open: incomplete-app %v, want critical", got)
	}
	if got := severity(ended, src); got != diagnose.Info {
		t.Errorf("finished log without an end, every job ended: incomplete-app %v, want info", got)
	}
	src.InProgress = true
	if got := severity(running, src); got != diagnose.Info {
		t.Errorf("log written a second ago: incomplete-app %v, want info", got)
	}
}

// TestLiveNow: an application runs to now only while its log is being
// written, recently, with recent events.
func TestLiveNow(t *testing.T) {
	now := time.UnixMilli(10_000_000_000)
	running := func() *model.Attempt {
		a := model.NewAttempt()
		a.StartTime = now.UnixMilli() - 400_000 // waiting for executors since
		return a
	}
	src := Source{InProgress: true, ModTime: now.Add(-400 * time.Second), Now: now}
	if got := LiveNow(running(), src); got != now.UnixMilli() {
		t.Errorf("a log written 400 s ago, its app waiting since: got %d, want now", got)
	}
	old := src
	old.ModTime = now.Add(-LiveWithin - time.Second)
	if got := LiveNow(running(), old); got != 0 {
		t.Errorf("a log untouched for longer than LiveWithin: got %d, want 0", got)
	}
	copied := running()
	copied.StartTime = now.UnixMilli() - 10*LiveWithin.Milliseconds() // events of long ago, file copied just now
	if got := LiveNow(copied, src); got != 0 {
		t.Errorf("an old log with a fresh file time: got %d, want 0", got)
	}
	done := src
	done.InProgress = false
	if got := LiveNow(running(), done); got != 0 {
		t.Errorf("a finished log: got %d, want 0", got)
	}
	// Diagnose analyses a running application up to now.
	if d := Diagnose(running(), nil, src, nil); !d.Result.Running || d.Result.DurationMs != 400_000 {
		t.Errorf("Diagnose of a running app: running %v, duration %d; want true, 400 s", d.Result.Running, d.Result.DurationMs)
	}
}
