package eventlog

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/sparktest"
)

func replayString(t *testing.T, s string, opts ReplayOptions) (*model.Attempt, *ReplayStats, error) {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "test.log"
	}
	opts.ChunkSize = 64 // many chunks: exercises ordering across workers
	return Replay(context.Background(), strings.NewReader(s), opts)
}

const appStart = `{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-1","Timestamp":1000,"User":"u"}` + "\n"

func TestReplayPerEventKind(t *testing.T) {
	cases := []struct {
		name  string
		lines string
		check func(t *testing.T, a *model.Attempt)
	}{
		{"app start and end", appStart + `{"Event":"SparkListenerApplicationEnd","Timestamp":5000}`,
			func(t *testing.T, a *model.Attempt) {
				if a.AppID != "app-1" || a.SparkUser != "u" || !a.Completed || a.Duration() != 4000 {
					t.Errorf("got id %q user %q completed %v duration %d, want app-1 u true 4000",
						a.AppID, a.SparkUser, a.Completed, a.Duration())
				}
			}},
		{"log start", `{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}`,
			func(t *testing.T, a *model.Attempt) {
				if a.SparkVersion != "3.5.1" {
					t.Errorf("got version %q, want 3.5.1", a.SparkVersion)
				}
			}},
		{"executor added and removed",
			`{"Event":"SparkListenerExecutorAdded","Timestamp":10,"Executor ID":"1","Executor Info":{"Host":"h1","Total Cores":4,"Log Urls":{"stdout":"x"}}}
{"Event":"SparkListenerExecutorRemoved","Timestamp":20,"Executor ID":"1","Removed Reason":"lost"}`,
			func(t *testing.T, a *model.Attempt) {
				e := a.Executor("1")
				if e == nil || e.TotalCores != 4 || e.MaxTasks != 4 || e.IsActive || e.RemoveReason != "lost" || e.RemoveTime != 20 {
					t.Errorf("got executor %+v, want 4 cores, removed at 20 for lost", e)
				}
			}},
		{"job, stage and task",
			`{"Event":"SparkListenerExecutorAdded","Timestamp":10,"Executor ID":"1","Executor Info":{"Host":"h1","Total Cores":2}}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":100,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"count","Number of Tasks":2}],"Stage IDs":[0]}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"count","Number of Tasks":2,"Submission Time":110}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":120,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":121,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":120,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL","Finish Time":150},"Task Metrics":{"Executor Run Time":25,"JVM GC Time":3,"Input Metrics":{"Bytes Read":100,"Records Read":1}}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"ExceptionFailure","Class Name":"java.lang.RuntimeException","Description":"boom","Stack Trace":[]},"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":121,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL","Finish Time":160,"Failed":true}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"count","Number of Tasks":2,"Submission Time":110,"Completion Time":170,"Failure Reason":"task failed"}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":180,"Job Result":{"Result":"JobFailed"}}`,
			func(t *testing.T, a *model.Attempt) {
				j := a.Job(0)
				s := a.Stage(0, 0)
				if j == nil || s == nil {
					t.Fatalf("got job %v stage %v, want both", j, s)
				}
				if j.Status != model.JobFailed || j.CompletedTasks != 1 || j.FailedTasks != 1 || j.FailedStages != 1 {
					t.Errorf("got job %s completed %d failed %d failedStages %d, want FAILED 1 1 1",
						j.Status, j.CompletedTasks, j.FailedTasks, j.FailedStages)
				}
				if s.Status != model.StageFailed || s.Metrics.ExecutorRunTime != 25 || s.Metrics.InputBytesRead != 100 {
					t.Errorf("got stage %s runTime %d input %d, want FAILED 25 100", s.Status, s.Metrics.ExecutorRunTime, s.Metrics.InputBytesRead)
				}
				if len(s.Tasks) != 2 || s.Tasks[1].Status() != model.TaskFailed ||
					s.Tasks[1].ErrorMessage != "java.lang.RuntimeException: boom\n" {
					t.Errorf("got tasks %d, second %q %q", len(s.Tasks), s.Tasks[1].Status(), s.Tasks[1].ErrorMessage)
				}
				e := a.Executor("1")
				if e.CompletedTasks != 1 || e.FailedTasks != 1 || e.TotalGCTime != 3 || e.TotalDuration != 69 {
					t.Errorf("got executor completed %d failed %d gc %d duration %d, want 1 1 3 69",
						e.CompletedTasks, e.FailedTasks, e.TotalGCTime, e.TotalDuration)
				}
			}},
		{"block manager and storage memory",
			`{"Event":"SparkListenerBlockManagerAdded","Block Manager ID":{"Executor ID":"driver","Host":"h","Port":7},"Maximum Memory":100,"Timestamp":1,"Maximum Onheap Memory":80,"Maximum Offheap Memory":20}`,
			func(t *testing.T, a *model.Attempt) {
				e := a.Executor("driver")
				if e == nil || e.HostPort != "h:7" || e.MaxMemory != 100 || e.TotalOnHeap != 80 || e.TotalOffHeap != 20 {
					t.Errorf("got %+v, want h:7 max 100 on 80 off 20", e)
				}
			}},
		{"stage executor metrics peaks",
			`{"Event":"SparkListenerExecutorAdded","Timestamp":10,"Executor ID":"1","Executor Info":{"Host":"h1","Total Cores":2}}
{"Event":"SparkListenerStageExecutorMetrics","Executor ID":"1","Stage ID":0,"Stage Attempt ID":0,"Executor Metrics":{"JVMHeapMemory":500,"ProcessTreePythonRSSMemory":7}}
{"Event":"SparkListenerStageExecutorMetrics","Executor ID":"1","Stage ID":1,"Stage Attempt ID":0,"Executor Metrics":{"JVMHeapMemory":300,"ProcessTreePythonRSSMemory":9}}`,
			func(t *testing.T, a *model.Attempt) {
				p := a.Executor("1").Peak
				if !p.Set || p.Values[model.MetricJVMHeapMemory] != 500 || p.Values[model.MetricProcessTreePythonRSSMemory] != 9 {
					t.Errorf("got peaks %v, want heap 500 python 9", p)
				}
			}},
		{"executor exclusion",
			`{"Event":"SparkListenerExecutorAdded","Timestamp":10,"Executor ID":"1","Executor Info":{"Host":"h1","Total Cores":2}}
{"Event":"org.apache.spark.scheduler.SparkListenerExecutorExcluded","time":11,"executorId":"1","taskFailures":3}`,
			func(t *testing.T, a *model.Attempt) {
				if !a.Executor("1").IsExcluded {
					t.Error("got executor not excluded, want excluded")
				}
			}},
		{"environment and resource profile",
			`{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{"Java Version":"17"},"Spark Properties":{"spark.task.cpus":"2","spark.app.name":"x"},"System Properties":{},"Classpath Entries":{}}
{"Event":"SparkListenerExecutorAdded","Timestamp":10,"Executor ID":"1","Executor Info":{"Host":"h1","Total Cores":4}}`,
			func(t *testing.T, a *model.Attempt) {
				if a.Env.JavaVersion != "17" || len(a.Env.SparkProperties) != 2 || a.Env.SparkProperties[0][0] != "spark.app.name" {
					t.Errorf("got env %+v, want java 17 and sorted properties", a.Env)
				}
				if got := a.Executor("1").MaxTasks; got != 2 {
					t.Errorf("got maxTasks %d, want 2 (4 cores / 2 cpus per task)", got)
				}
			}},
		{"sql execution", `{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart","executionId":3,"description":"q","details":"","physicalPlanDescription":"plan","sparkPlanInfo":{"nodeName":"Scan","simpleString":"Scan x","children":[],"metrics":[{"name":"rows","accumulatorId":9,"metricType":"sum"}]},"time":10}
{"Event":"org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates","executionId":3,"accumUpdates":[[9,42]]}
{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd","executionId":3,"time":20}`,
			func(t *testing.T, a *model.Attempt) {
				x := a.SQLExecution(3)
				if x == nil || x.EndTime != 20 || x.Plan == nil || x.Plan.Metrics[0].AccumulatorID != 9 || x.DriverUpdates[9] != 42 {
					t.Errorf("got sql %+v, want end 20, plan metric 9 = 42", x)
				}
			}},
		{"unpersist", `{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"RDD Info":[{"RDD ID":4,"Name":"r","Storage Level":{"Use Disk":false,"Use Memory":true,"Deserialized":true,"Replication":1},"Number of Partitions":2}]}}
{"Event":"SparkListenerUnpersistRDD","RDD ID":4}`,
			func(t *testing.T, a *model.Attempt) {
				if a.RDD(4) != nil || len(a.RDDs) != 0 {
					t.Errorf("got rdd %v, want none after unpersist", a.RDD(4))
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _, err := replayString(t, c.lines, ReplayOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, a)
		})
	}
}

func TestReplayBadLines(t *testing.T) {
	log := appStart + "{not json\n" + `{"Event":"SparkListenerSomethingNew","x":1}` + "\n" + `{"no event":1}` + "\n"
	t.Run("lenient", func(t *testing.T) {
		a, st, err := replayString(t, log, ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a.AppID != "app-1" || st.BadLines != 2 || st.Unknown["SparkListenerSomethingNew"] != 1 || st.Events != 2 {
			t.Errorf("got app %q bad %d unknown %v events %d, want app-1 2 1 2", a.AppID, st.BadLines, st.Unknown, st.Events)
		}
		if st.Lines != 4 {
			t.Errorf("got %d lines, want 4", st.Lines)
		}
		if len(st.FirstBad) == 0 || st.FirstBad[0].Line != 2 {
			t.Errorf("got first bad %v, want line 2", st.FirstBad)
		}
	})
	t.Run("strict", func(t *testing.T) {
		_, _, err := replayString(t, log, ReplayOptions{Strict: true, Name: "x.log"})
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "x.log line 2") {
			t.Errorf("got %v, want a LineError at x.log line 2", err)
		}
	})
	t.Run("cut last line of in-progress log", func(t *testing.T) {
		cut := appStart + `{"Event":"SparkListenerJobStart","Job ID":0,"Sta`
		_, st, err := replayString(t, cut, ReplayOptions{Strict: true, InProgress: true})
		if err != nil || !st.Truncated || st.BadLines != 0 {
			t.Errorf("got err %v truncated %v bad %d, want nil true 0", err, st.Truncated, st.BadLines)
		}
		_, _, err = replayString(t, cut, ReplayOptions{Strict: true})
		if err == nil {
			t.Error("got nil error for a cut last line of a finished log in strict mode, want an error")
		}
	})
}

// TestReplayMatchesAcrossChunking replays a real log with tiny and default
// chunks and several workers: the results must agree.
func TestReplayMatchesAcrossChunking(t *testing.T) {
	data, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	var want *model.Attempt
	for _, o := range []ReplayOptions{{Workers: 1}, {Workers: 3, ChunkSize: 100}, {Workers: 2, ChunkSize: 4096}} {
		a, st, err := Replay(context.Background(), bytes.NewReader(data), o)
		if err != nil {
			t.Fatal(err)
		}
		if st.Events != 231 || st.Bytes != int64(len(data)) {
			t.Errorf("got %d events %d bytes, want 231 and %d", st.Events, st.Bytes, len(data))
		}
		if want == nil {
			want = a
			continue
		}
		if len(a.Stages) != len(want.Stages) || a.Stage(0, 0).Metrics != want.Stage(0, 0).Metrics ||
			len(a.Stage(1, 0).Tasks) != len(want.Stage(1, 0).Tasks) {
			t.Errorf("workers %d chunk %d: replay differs", o.Workers, o.ChunkSize)
		}
	}
}

// TestBrokenAttempts: SPARK-39620 logs, one attempt lacking ApplicationEnd.
func TestBrokenAttempts(t *testing.T) {
	cases := []struct {
		dir           string
		newestDone    bool
		completedByID map[string]bool
	}{
		{"last-attempt-incomplete", false, map[string]bool{"1": true, "2": false}},
		{"previous-attempt-incomplete", true, map[string]bool{"1": false, "2": true}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			apps, err := LoadApps(context.Background(), sparktest.Path(t, "extra", "spark-events-broken", c.dir), ReplayOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(apps) != 1 || len(apps[0].Attempts) != 2 {
				t.Fatalf("got %d apps, want 1 with 2 attempts", len(apps))
			}
			app := apps[0]
			if app.Attempts[0].AttemptID != "2" || app.Attempts[0].Completed != c.newestDone {
				t.Errorf("got newest attempt %q completed %v, want 2 %v", app.Attempts[0].AttemptID, app.Attempts[0].Completed, c.newestDone)
			}
			for _, a := range app.Attempts {
				if a.Completed != c.completedByID[a.AttemptID] {
					t.Errorf("attempt %s: got completed %v, want %v", a.AttemptID, a.Completed, c.completedByID[a.AttemptID])
				}
			}
		})
	}
}

func TestRollingLog(t *testing.T) {
	apps, err := LoadApps(context.Background(), sparktest.Path(t, "spark-events", "eventlog_v2_local-1766844910796"), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 1 || apps[0].ID != "local-1766844910796" || !apps[0].Attempts[0].Completed {
		t.Errorf("got %v, want one completed app local-1766844910796", apps)
	}
}

// bigLog decodes the large benchmark log with the zstd tool.
func bigLog(b testing.TB) []byte {
	path := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	zstd := sparktest.Program(b, "zstd")
	out, err := exec.Command(zstd, "-dc", path).Output()
	if err != nil {
		b.Fatalf("zstd -dc %s: %v", filepath.Base(path), err)
	}
	return out
}

func BenchmarkReplay(b *testing.B) {
	data := bigLog(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_, st, err := Replay(context.Background(), bytes.NewReader(data), ReplayOptions{Name: "big"})
		if err != nil {
			b.Fatal(err)
		}
		if st.Events != 26214 {
			b.Fatalf("got %d events, want 26214", st.Events)
		}
	}
}

func BenchmarkDecodeLine(b *testing.B) {
	data := bigLog(b)
	lines := bytes.Split(data, []byte{'\n'})
	d := NewDecoder()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, ln := range lines {
			if len(ln) > 0 {
				d.DecodeLine(ln)
			}
		}
	}
}

func newTestAttempt() *model.Attempt { return model.NewAttempt() }

// BenchmarkReplayZstd is the end-to-end goal: the zstd file through the
// codec, line splitting, parallel decoding and replay.
func BenchmarkReplayZstd(b *testing.B) {
	path := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	logs, err := Open(context.Background(), path, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(39586408) // decoded JSON bytes
	b.ReportAllocs()
	for range b.N {
		_, st, err := ReplayLog(context.Background(), logs[0], ReplayOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if st.Bytes != 39586408 {
			b.Fatalf("got %d decoded bytes, want 39586408", st.Bytes)
		}
	}
}

func TestCompressedLogsMatchPlain(t *testing.T) {
	plain, err := LoadApps(context.Background(), sparktest.Path(t, "spark-events", "local-1430917381534"), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := plain[0].Attempts[0]
	for _, ext := range []string{"lz4", "lzf", "snappy", "zstd"} {
		t.Run(ext, func(t *testing.T) {
			apps, err := LoadApps(context.Background(), sparktest.Path(t, "compressed", "local-1430917381534."+ext), ReplayOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			got := apps[0].Attempts[0]
			if len(got.Stages) != len(want.Stages) || got.Stage(1, 0).Metrics != want.Stage(1, 0).Metrics || got.EndTime != want.EndTime {
				t.Errorf("replay of .%s differs from the plain log", ext)
			}
		})
	}
}
