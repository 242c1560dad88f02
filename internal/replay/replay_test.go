package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func replayString(t *testing.T, s string, opts Options) (*model.Attempt, *Stats, error) {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "test.log"
	}
	opts.ChunkSize = 64 // many chunks: exercises ordering across workers
	return Read(context.Background(), strings.NewReader(s), opts)
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
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"ExceptionFailure","Class Name":"java.lang.RuntimeException","Description":"boom","Stack Trace":[{"Declaring Class":"a.B","Method Name":"run","File Name":"B.java","Line Number":7},{"Declaring Class":"a.C","Method Name":"go","File Name":"C.java","Line Number":-2}]},"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":121,"Executor ID":"1","Host":"h1","Locality":"PROCESS_LOCAL","Finish Time":160,"Failed":true}}
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
					s.Tasks[1].ErrorMessage() != "java.lang.RuntimeException: boom\n        a.B.run(B.java:7)\n        a.C.go(Native Method)" {
					t.Errorf("got tasks %d, second %q %q", len(s.Tasks), s.Tasks[1].Status(), s.Tasks[1].ErrorMessage())
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
		{"task executor metrics", `{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":5}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":6,"Executor ID":"1","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":6,"Executor ID":"1","Host":"h","Locality":"ANY","Finish Time":9},"Task Executor Metrics":{"JVMHeapMemory":77,"ProcessTreePythonRSSMemory":5},"Task Metrics":{"Executor Run Time":3}}`,
			func(t *testing.T, a *model.Attempt) {
				s := a.Stage(0, 0)
				tk := s.Tasks[0]
				if tk.ExecMetrics() == nil || tk.ExecMetrics().Values[model.MetricJVMHeapMemory] != 77 ||
					s.Peak.Values[model.MetricProcessTreePythonRSSMemory] != 5 || s.ExecSummary[0].Peak.Values[model.MetricJVMHeapMemory] != 77 {
					t.Errorf("got task metrics %v, stage peaks %v", tk.ExecMetrics(), s.Peak)
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
		{"rdd block updates", `{"Event":"SparkListenerBlockManagerAdded","Block Manager ID":{"Executor ID":"1","Host":"h","Port":7},"Maximum Memory":1000,"Timestamp":1,"Maximum Onheap Memory":1000,"Maximum Offheap Memory":0}
{"Event":"SparkListenerExecutorAdded","Timestamp":1,"Executor ID":"1","Executor Info":{"Host":"h","Total Cores":1}}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":2,"RDD Info":[{"RDD ID":4,"Name":"r","Storage Level":{"Use Disk":false,"Use Memory":true,"Deserialized":true,"Replication":1},"Number of Partitions":2}]}}
{"Event":"SparkListenerBlockUpdated","Block Updated Info":{"Block Manager ID":{"Executor ID":"1","Host":"h","Port":7},"Block ID":"rdd_4_0","Storage Level":{"Use Disk":false,"Use Memory":true,"Deserialized":true,"Replication":1},"Memory Size":100,"Disk Size":0}}
{"Event":"SparkListenerBlockUpdated","Block Updated Info":{"Block Manager ID":{"Executor ID":"1","Host":"h","Port":7},"Block ID":"rdd_4_1","Storage Level":{"Use Disk":false,"Use Memory":true,"Deserialized":true,"Replication":1},"Memory Size":50,"Disk Size":0}}
{"Event":"SparkListenerBlockUpdated","Block Updated Info":{"Block Manager ID":{"Executor ID":"1","Host":"h","Port":7},"Block ID":"rdd_4_1","Storage Level":{"Use Disk":false,"Use Memory":false,"Deserialized":false,"Replication":1},"Memory Size":50,"Disk Size":0}}`,
			func(t *testing.T, a *model.Attempt) {
				r := a.RDD(4)
				e := a.Executor("1")
				if r == nil || len(r.Partitions) != 1 || r.MemoryUsed != 100 || len(r.Distributions) != 1 || r.Distributions[0].MemoryUsed != 100 {
					t.Fatalf("got rdd %+v, want one cached partition of 100 bytes on one executor", r)
				}
				if p := r.Partitions[0]; p.StorageLevel != "Memory Deserialized 1x Replicated" || p.BlockName != "rdd_4_0" {
					t.Errorf("got partition %+v", p)
				}
				if e.RDDBlocks != 1 || e.MemoryUsed != 100 || e.UsedOnHeap != 100 {
					t.Errorf("got executor blocks %d memory %d onHeap %d, want 1 100 100", e.RDDBlocks, e.MemoryUsed, e.UsedOnHeap)
				}
			}},
		{"resubmitted does not make a task inactive", `{"Event":"SparkListenerExecutorAdded","Timestamp":10,"Executor ID":"1","Executor Info":{"Host":"h1","Total Cores":2}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ShuffleMapTask","Task End Reason":{"Reason":"Resubmitted"},"Task Info":{"Task ID":5,"Index":0,"Attempt":0,"Launch Time":1,"Executor ID":"1","Host":"h1","Locality":"ANY","Finish Time":9}}`,
			func(t *testing.T, a *model.Attempt) {
				if e := a.Executor("1"); e.ActiveTasks != 0 || e.FailedTasks != 1 {
					t.Errorf("got active %d failed %d, want 0 1", e.ActiveTasks, e.FailedTasks)
				}
			}},
		{"pending stage shared by two jobs is skipped for the job that ends", `{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1,"Stage Infos":[{"Stage ID":3,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":4}],"Stage IDs":[3]}
{"Event":"SparkListenerJobStart","Job ID":2,"Submission Time":2,"Stage Infos":[{"Stage ID":3,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":4}],"Stage IDs":[3]}
{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":5,"Job Result":{"Result":"JobSucceeded"}}`,
			func(t *testing.T, a *model.Attempt) {
				for id, want := range map[int]int{1: 1, 2: 0} {
					j := a.Job(id)
					if len(j.SkippedStages) != want || j.SkippedTasks != 4*want {
						t.Errorf("job %d: got %d skipped stages, %d skipped tasks, want %d and %d", id, len(j.SkippedStages), j.SkippedTasks, want, 4*want)
					}
				}
				if s := a.Stage(3, 0); s.Status != model.StageSkipped {
					t.Errorf("got stage status %s, want SKIPPED", s.Status)
				}
			}},
		{"an ended job counts late task ends only once a stage finishes", `{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3}],"Stage IDs":[0]}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3,"Submission Time":2}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":2,"Index":2,"Attempt":0,"Launch Time":3,"Executor ID":"2","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"ExceptionFailure","Class Name":"E","Description":"bad","Stack Trace":[]},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY","Finish Time":4,"Failed":true}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3,"Submission Time":2,"Completion Time":5,"Failure Reason":"aborted"}}
{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":5,"Job Result":{"Result":"JobFailed","Exception":{"Message":"aborted"}}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"TaskKilled","Kill Reason":"Stage cancelled"},"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY","Finish Time":6,"Killed":true}}`,
			func(t *testing.T, a *model.Attempt) {
				j := a.Job(1)
				if j.ActiveTasks != 2 || j.FailedTasks != 1 || j.KilledTasks != 0 || len(j.KilledSummary) != 0 || j.FailedStages != 1 {
					t.Errorf("at the job's end: got active %d failed %d killed %d %v failed stages %d, want 2 1 0 map[] 1",
						j.ActiveTasks, j.FailedTasks, j.KilledTasks, j.KilledSummary, j.FailedStages)
				}
				if s := a.Stage(0, 0); s.KilledTasks != 1 || s.ActiveTasks != 1 {
					t.Errorf("stage: got killed %d active %d, want 1 1", s.KilledTasks, s.ActiveTasks)
				}
			}},
		{"an ended job takes the late task ends when the last one finishes its stage", `{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3}],"Stage IDs":[0]}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3,"Submission Time":2}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":2,"Index":2,"Attempt":0,"Launch Time":3,"Executor ID":"2","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"ExceptionFailure","Class Name":"E","Description":"bad","Stack Trace":[]},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY","Finish Time":4,"Failed":true}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":3,"Submission Time":2,"Completion Time":5,"Failure Reason":"aborted"}}
{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":5,"Job Result":{"Result":"JobFailed","Exception":{"Message":"aborted"}}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"TaskKilled","Kill Reason":"Stage cancelled"},"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY","Finish Time":6,"Killed":true}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ResultTask","Task End Reason":{"Reason":"ExecutorLostFailure","Executor ID":"2","Exit Caused By App":true,"Loss Reason":"killed"},"Task Info":{"Task ID":2,"Index":2,"Attempt":0,"Launch Time":3,"Executor ID":"2","Host":"h","Locality":"ANY","Finish Time":7,"Failed":true}}`,
			func(t *testing.T, a *model.Attempt) {
				j := a.Job(1)
				if j.ActiveTasks != 0 || j.FailedTasks != 2 || j.KilledTasks != 1 || j.KilledSummary["Stage cancelled"] != 1 {
					t.Errorf("got active %d failed %d killed %d %v, want 0 2 1 map[Stage cancelled:1]",
						j.ActiveTasks, j.FailedTasks, j.KilledTasks, j.KilledSummary)
				}
			}},
		{"a completed stage attempt listed again by a later job", `{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1}],"Stage IDs":[0]}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":2}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ShuffleMapTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":3,"Executor ID":"1","Host":"h","Locality":"ANY","Finish Time":4},"Task Metrics":{"Executor Run Time":1}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":2,"Completion Time":5}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":6,"Job Result":{"Result":"JobSucceeded"}}
{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":7,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":2,"Completion Time":5}],"Stage IDs":[0]}
{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":8,"Job Result":{"Result":"JobSucceeded"}}`,
			func(t *testing.T, a *model.Attempt) {
				s := a.Stage(0, 0)
				if s.Status != model.StageComplete || s.CompletedTasks != 1 || s.Metrics.ExecutorRunTime != 1 {
					t.Errorf("model: got status %s, %d completed, run time %d; want the finished run kept",
						s.Status, s.CompletedTasks, s.Metrics.ExecutorRunTime)
				}
				v := s.HistoryView
				if v == nil || v.Status != model.StageSkipped || v.CompletedTasks != 0 || v.Metrics.ExecutorRunTime != 0 || len(v.Tasks) != 1 {
					t.Errorf("history view: got %+v, want SKIPPED, 0 completed, run time 0, the stored task", v)
				}
				if j := a.Job(1); j.NumTasks != 0 || j.SkippedTasks != 1 {
					t.Errorf("job 1: got %d tasks, %d skipped, want 0 and 1", j.NumTasks, j.SkippedTasks)
				}
			}},
		{"job tags sorted and unique", `{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":100,"Stage Infos":[],"Stage IDs":[],"Properties":{"spark.job.tags":"b,a,,b","spark.jobGroup.id":"g"}}`,
			func(t *testing.T, a *model.Attempt) {
				j := a.Job(1)
				if j == nil || strings.Join(j.JobTags, ",") != "a,b" || j.JobGroup != "g" {
					t.Errorf("got job %+v, want tags a,b and group g", j)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _, err := replayString(t, c.lines, Options{})
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
		a, st, err := replayString(t, log, Options{})
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
	t.Run("missing required field", func(t *testing.T) {
		_, _, err := replayString(t, appStart+`{"Event":"SparkListenerTaskEnd","Stage ID":1}`+"\n", Options{Strict: true, Name: "app-42.log"})
		if err == nil || err.Error() != `eventlog: app-42.log line 2: SparkListenerTaskEnd: missing "Task Info"` {
			t.Errorf("got %v, want the line, event and missing field named", err)
		}
	})
	t.Run("strict", func(t *testing.T) {
		_, _, err := replayString(t, log, Options{Strict: true, Name: "x.log"})
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "x.log line 2") {
			t.Errorf("got %v, want a LineError at x.log line 2", err)
		}
	})
	t.Run("cut last line of in-progress log", func(t *testing.T) {
		cut := appStart + `{"Event":"SparkListenerJobStart","Job ID":0,"Sta`
		_, st, err := replayString(t, cut, Options{Strict: true, InProgress: true})
		if err != nil || !st.Truncated || st.BadLines != 0 {
			t.Errorf("got err %v truncated %v bad %d, want nil true 0", err, st.Truncated, st.BadLines)
		}
		_, _, err = replayString(t, cut, Options{Strict: true})
		if err == nil {
			t.Error("got nil error for a cut last line of a finished log in strict mode, want an error")
		}
	})
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
			apps, err := LoadApps(context.Background(), sparktest.Path(t, "extra", "spark-events-broken", c.dir), Options{})
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
	apps, err := LoadApps(context.Background(), sparktest.Path(t, "spark-events", "eventlog_v2_local-1766844910796"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 1 || apps[0].ID != "local-1766844910796" || !apps[0].Attempts[0].Completed {
		t.Errorf("got %v, want one completed app local-1766844910796", apps)
	}
}

// bigLog decodes the large benchmark log through the codec package.
func bigLog(b testing.TB) []byte {
	logs, err := eventlog.Open(context.Background(), sparktest.Path(b, "big", "application_1701368813061_0008.zstd"), eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	r, err := logs[0].NewReader(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func BenchmarkReplay(b *testing.B) {
	data := bigLog(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := sparktest.CPUTime()
	for range b.N {
		_, st, err := Read(context.Background(), bytes.NewReader(data), Options{Name: "big"})
		if err != nil {
			b.Fatal(err)
		}
		if st.Events != 26214 {
			b.Fatalf("got %d events, want 26214", st.Events)
		}
	}
	sparktest.ReportCPU(b, start)
}

func newTestAttempt() *model.Attempt { return model.NewAttempt() }

// BenchmarkReplayZstd is the end-to-end goal: the zstd file through the
// codec, line splitting, parallel decoding and replay.
func BenchmarkReplayZstd(b *testing.B) {
	path := sparktest.Path(b, "big", "application_1701368813061_0008.zstd")
	logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(39586408) // decoded JSON bytes
	b.ReportAllocs()
	start := sparktest.CPUTime()
	defer sparktest.ReportCPU(b, start)
	for range b.N {
		_, st, err := Log(context.Background(), logs[0], Options{})
		if err != nil {
			b.Fatal(err)
		}
		if st.Bytes != 39586408 {
			b.Fatalf("got %d decoded bytes, want 39586408", st.Bytes)
		}
	}
}

func TestCompressedLogsMatchPlain(t *testing.T) {
	plain, err := LoadApps(context.Background(), sparktest.Path(t, "spark-events", "local-1430917381534"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := plain[0].Attempts[0]
	for _, ext := range []string{"lz4", "lzf", "snappy", "zstd"} {
		t.Run(ext, func(t *testing.T) {
			apps, err := LoadApps(context.Background(), sparktest.Path(t, "compressed", "local-1430917381534."+ext), Options{Strict: true})
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

// TestStreamingQuery checks the StreamingQueryHistorySuite oracle.
func TestStreamingQuery(t *testing.T) {
	apps, err := LoadApps(context.Background(), sparktest.Path(t, "extra", "sql-core-spark-events", "local-1596020211915"), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	a := apps[0].Attempts[0]
	if a.AppName != "StructuredKafkaWordCount" || len(a.Streaming) != 1 {
		t.Fatalf("got app %q with %d queries, want StructuredKafkaWordCount with 1", a.AppName, len(a.Streaming))
	}
	q := a.Streaming[0]
	if q.ID != "8d268dc2-bc9c-4be8-97a9-b135d2943028" || q.RunID != "e225d92f-2545-48f8-87a2-9c0309580f8a" || len(q.Progress) != 8 {
		t.Errorf("got query %s run %s with %d progress events, want 8d268dc2…, e225d92f… and 8", q.ID, q.RunID, len(q.Progress))
	}
	var in, proc float64
	for _, p := range q.Progress {
		in += p.InputRowsPerSecond
		proc += p.ProcessedRowsPerSecond
	}
	n := float64(len(q.Progress))
	if got := fmt.Sprintf("%.2f %.2f", in/n, proc/n); got != "81.39 157.05" {
		t.Errorf("got avg input/process rates %s, want 81.39 157.05", got)
	}
	if len(a.SQL) != 24 {
		t.Errorf("got %d SQL executions, want 24", len(a.SQL))
	}
}

// TestOldStreamingEvents: the StreamingQueryListener JSON of Spark 2.0.x
// must replay without errors.
func TestOldStreamingEvents(t *testing.T) {
	for _, v := range []string{"2.0.0", "2.0.1", "2.0.2"} {
		t.Run(v, func(t *testing.T) {
			apps, err := LoadApps(context.Background(),
				sparktest.Path(t, "extra", "structured-streaming", "query-event-logs-version-"+v+".txt"), Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(apps) != 0 { // no ApplicationStart: not an application
				t.Errorf("got %d apps, want 0", len(apps))
			}
			data, err := os.ReadFile(sparktest.Path(t, "extra", "structured-streaming", "query-event-logs-version-"+v+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			a, st, err := Read(context.Background(), bytes.NewReader(data), Options{Strict: true})
			if err != nil || st.BadLines != 0 || len(st.Unknown) != 0 {
				t.Fatalf("got err %v, bad %d, unknown %v", err, st.BadLines, st.Unknown)
			}
			if len(a.Streaming) == 0 || a.Streaming[0].Name == "" {
				t.Errorf("got queries %+v, want named queries", a.Streaming)
			}
		})
	}
}

// TestInProgressLogs: cut logs of a running application replay without
// error even in strict mode, and say they were cut.
func TestInProgressLogs(t *testing.T) {
	for _, name := range []string{"local-1642039451826.inprogress", "local-1642039451826.zstd.inprogress",
		"local-1642039451826.lz4.inprogress", "local-1642039451826-cut.zstd.inprogress"} {
		t.Run(name, func(t *testing.T) {
			logs, err := eventlog.Open(context.Background(), sparktest.Path(t, "compressed", name), eventlog.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !logs[0].InProgress {
				t.Errorf("got InProgress false for %s, want true", name)
			}
			a, st, err := Log(context.Background(), logs[0], Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if !st.Truncated || a.Completed || a.AppID != "local-1642039451826" || st.Events == 0 {
				t.Errorf("got truncated %v completed %v app %q events %d, want true false local-1642039451826 >0",
					st.Truncated, a.Completed, a.AppID, st.Events)
			}
		})
	}
}

// TestReplayRollingCompressed: a rolling log in three compressed parts replays
// like the plain log.
func TestReplayRollingCompressed(t *testing.T) {
	plain, err := LoadApps(context.Background(), sparktest.Path(t, "spark-events", "app-20200706201101-0003"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := plain[0].Attempts[0]
	for _, dir := range []string{"rolling-zstd", "rolling-lz4"} {
		t.Run(dir, func(t *testing.T) {
			apps, err := LoadApps(context.Background(), sparktest.Path(t, "compressed", dir, "eventlog_v2_app-20200706201101-0003"), Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			got := apps[0].Attempts[0]
			if len(got.Stages) != len(want.Stages) || got.Stage(2, 0).Metrics != want.Stage(2, 0).Metrics ||
				len(got.Executors) != len(want.Executors) || !got.Completed {
				t.Errorf("rolling %s replay differs from the plain log", dir)
			}
		})
	}
}

func TestKnownButIgnoredEventsAreNotUnknown(t *testing.T) {
	log := appStart + `{"Event":"SparkListenerSpeculativeTaskSubmitted","Stage ID":0,"Stage Attempt ID":0}` + "\n" +
		`{"Event":"org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveSQLMetricUpdates","executionId":1,"sqlPlanMetrics":[]}` + "\n"
	_, st, err := replayString(t, log, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Unknown) != 0 || st.Events != 3 {
		t.Errorf("got unknown %v and %d events, want none unknown of 3", st.Unknown, st.Events)
	}
}

func TestGroupAppsKeepsOneLogPerAttempt(t *testing.T) {
	mk := func(app, attempt string, start, updated int64) *model.Attempt {
		a := model.NewAttempt()
		a.AppID, a.AttemptID, a.StartTime, a.LastUpdated, a.EndTime = app, attempt, start, updated, start+10
		return a
	}
	old, newer := mk("a", "", 1, 100), mk("a", "", 1, 200)
	apps := GroupApps([]*model.Attempt{old, mk("b", "1", 5, 5), newer, mk("b", "2", 9, 9)})
	if len(apps) != 2 || len(apps[0].Attempts) != 2 || apps[0].ID != "b" || apps[0].Attempts[0].AttemptID != "2" {
		t.Fatalf("got %+v, want b (attempts 2, 1) then a", apps)
	}
	if got := apps[1].Attempts; len(got) != 1 || got[0] != newer {
		t.Errorf("got attempts %v for a, want only the newer log", got)
	}
}
