package store

import (
	"errors"
	"strings"
	"testing"
)

func TestLogsAndReports(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := LogRecord{Key: "/logs/app-1", Path: "/logs/app-1.inprogress", AppID: "app-1", Offset: 100}
	if err := s.PutLog(run); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Report("/logs/app-1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("report of a running log: got %v, want ErrNotFound", err)
	}
	done := LogRecord{Key: "/logs/app-2", Path: "/logs/app-2", AppID: "app-2", Completed: true, Tags: []string{"etl"}}
	if err := s.PutAnalysis(done, []byte(`{"schema":"sparkdx.report/v1"}`), map[string][]byte{"page": []byte(`{"Stages":[]}`), "api/jobs": []byte(`[]`)}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Reopen: everything committed is there.
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	logs, err := s.Logs()
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 {
		t.Fatalf("got %d logs, want 2", len(logs))
	}
	if logs[0].Key != "/logs/app-1" || logs[0].Done || logs[0].Offset != 100 {
		t.Errorf("running log: got %+v", logs[0])
	}
	if !logs[1].Done || logs[1].Tags[0] != "etl" {
		t.Errorf("finished log: got %+v, want done with tag etl", logs[1])
	}
	rep, err := s.Report("/logs/app-2")
	if err != nil || string(rep) != `{"schema":"sparkdx.report/v1"}` {
		t.Errorf("report: got %q, %v", rep, err)
	}
	if v, err := s.View("/logs/app-2", "page"); err != nil || string(v) != `{"Stages":[]}` {
		t.Errorf("view: got %q, %v", v, err)
	}
	if _, err := s.View("/logs/app-2", "api/stages"); !errors.Is(err, ErrNotFound) {
		t.Errorf("view never stored: got %v, want ErrNotFound", err)
	}
	// A new analysis replaces every view.
	if err := s.PutAnalysis(done, []byte(`{}`), map[string][]byte{"page": []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.View("/logs/app-2", "api/jobs"); !errors.Is(err, ErrNotFound) {
		t.Errorf("view of the old analysis: got %v, want ErrNotFound", err)
	}
	if err := s.DeleteLog("/logs/app-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Report("/logs/app-2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted report: got %v, want ErrNotFound", err)
	}
	if _, err := s.View("/logs/app-2", "page"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted view: got %v, want ErrNotFound", err)
	}
}

func TestSamples(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := []Sample{
		{AppID: "app-1", ExecutorID: "1", Metric: "jvm.memory.used", Time: 2000, Value: 2e9},
		{AppID: "app-1", ExecutorID: "1", Metric: "jvm.memory.used", Time: 1000, Value: 1e9},
		{AppID: "app-1", ExecutorID: "driver", Metric: "jvm.class.loaded", Time: 1500, Value: 12000},
		{AppID: "app-10", ExecutorID: "1", Metric: "jvm.memory.used", Time: 1000, Value: 5},
		{AppID: "bad\x00id", ExecutorID: "1", Metric: "m", Time: 1, Value: 1},
	}
	if err := s.AddSamples(in); err != nil {
		t.Fatal(err)
	}
	got, err := s.Samples("app-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d samples of app-1, want 3 (app-10 is another app): %+v", len(got), got)
	}
	if got[0].Time != 1000 || got[0].Value != 1e9 || got[1].Time != 2000 {
		t.Errorf("got %+v, want executor 1's samples in time order", got[:2])
	}
	for _, c := range []struct {
		exec string
		want int
	}{{"1", 2}, {"driver", 1}, {"dr", 0}} {
		got, err := s.ExecutorSamples("app-1", c.exec)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.want {
			t.Errorf("ExecutorSamples(app-1, %q): got %d samples, want %d", c.exec, len(got), c.want)
		}
		for _, x := range got {
			if x.ExecutorID != c.exec || x.AppID != "app-1" {
				t.Errorf("ExecutorSamples(app-1, %q): got a sample of %s/%s", c.exec, x.AppID, x.ExecutorID)
			}
		}
	}
	n, err := s.PruneSamples(1600)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("pruned %d, want 3", n)
	}
	got, _ = s.Samples("app-1")
	if len(got) != 1 || got[0].Time != 2000 {
		t.Errorf("after prune: got %+v, want the sample at 2000", got)
	}
}

// TestTailState: a running log's resume state survives a reopen with its
// record, and goes when the log is finished, fails or is forgotten.
func TestTailState(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := LogRecord{Key: "/logs/app-1", Path: "/logs/app-1.inprogress", AppID: "app-1", Offset: 4096, Done: true}
	if err := s.PutTail(rec, []byte("state at 4096")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	logs, err := s.Logs()
	if err != nil || len(logs) != 1 || logs[0].Offset != 4096 || logs[0].Done {
		t.Fatalf("after reopen: got %+v, %v; want one running log at offset 4096", logs, err)
	}
	if st, err := s.Tail(rec.Key); err != nil || string(st) != "state at 4096" {
		t.Errorf("tail state: got %q, %v", st, err)
	}
	for _, end := range []struct {
		name string
		do   func() error
	}{
		{"finished", func() error { return s.PutAnalysis(rec, []byte(`{}`), nil) }},
		{"failed", func() error { r := rec; r.Done, r.Error = true, "bad"; return s.PutLog(r) }},
		{"forgotten", func() error { return s.DeleteLog(rec.Key) }},
	} {
		if err := s.PutTail(rec, []byte("state")); err != nil {
			t.Fatal(err)
		}
		if err := end.do(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tail(rec.Key); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s log: tail state got %v, want ErrNotFound", end.name, err)
		}
	}
	// A progress record of a running log keeps its state.
	if err := s.PutTail(rec, []byte("state")); err != nil {
		t.Fatal(err)
	}
	r := rec
	r.Done = false
	if err := s.PutLog(r); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tail(rec.Key); err != nil {
		t.Errorf("running log after PutLog: %v", err)
	}
}

// TestWriteHealth: a failed write is counted and makes the store's
// problem known until a write succeeds again.
func TestWriteHealth(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutLog(LogRecord{Key: "a"}); err != nil {
		t.Fatal(err)
	}
	if p := s.Writes().Problem("store"); p != "" || s.Writes().Failures() != 0 {
		t.Fatalf("after a write: problem %q, %d failures", p, s.Writes().Failures())
	}
	s.db.Close() // every write fails from now on
	if err := s.PutLog(LogRecord{Key: "b"}); err == nil {
		t.Fatal("a write to a closed database succeeded")
	}
	if p := s.Writes().Problem("store"); !strings.Contains(p, "store writes fail (1 since start") || s.Writes().Failures() != 1 {
		t.Errorf("after a failed write: problem %q, %d failures", p, s.Writes().Failures())
	}
	var h WriteHealth
	h.Record(errors.New("no space left on device"))
	h.Record(nil)
	if h.Problem("x") != "" || h.Failures() != 1 {
		t.Errorf("after a success: problem %q, %d failures; want none and 1", h.Problem("x"), h.Failures())
	}
}
