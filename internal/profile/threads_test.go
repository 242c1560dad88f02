package profile

import (
	"fmt"
	"testing"

	"github.com/sparkdx/sparkdx/internal/jfr"
	"time"
)

func TestParseTaskThread(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Task
		ok   bool
	}{
		{"Executor task launch worker for task 3.0 in stage 1.0 (TID 4)", Task{Stage: 1, Partition: "3.0", TID: 4}, true},
		{"Executor task launch worker for task 12.1 in stage 7.2 (TID 1234)", Task{Stage: 7, StageAttempt: 2, Partition: "12.1", TID: 1234}, true},
		{"Executor task launch worker for task 4", Task{}, false}, // Spark 2: no stage
		{"Executor task launch worker-0", Task{}, false},          // between tasks
		{"shuffle-client-4-1", Task{}, false},
	} {
		got, ok := ParseTaskThread(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseTaskThread(%q) = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseThreadDump(t *testing.T) {
	dump := `2026-11-28 00:25:01
Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

"main" #1 prio=5 os_prio=0 cpu=383.06ms elapsed=4.82s tid=0x00007fe9b8017ea0 nid=0x5f04 runnable  [0x00007fe9bd91d000]
   java.lang.Thread.State: RUNNABLE
	at java.io.FileInputStream.readBytes(java.base@17.0.15/Native Method)

"Executor task launch worker for task 3.0 in stage 1.0 (TID 4)" #58 daemon prio=5 os_prio=0 cpu=1.00ms elapsed=1.00s tid=0x00007fe9b8017ea0 nid=0x1f2e runnable  [0x0]
"a "quoted" #2 name" #60 daemon prio=5 os_prio=0 cpu=0.00ms elapsed=1.00s tid=0x0 nid=77 waiting on condition  [0x0]
"GC Thread#0" os_prio=0 cpu=0.59ms elapsed=4.83s tid=0x00007fe9b8045720 nid=0x5f05 runnable
`
	got := parseThreadDump(dump)
	want := map[int64]string{0x5f04: "main", 0x1f2e: "Executor task launch worker for task 3.0 in stage 1.0 (TID 4)", 77: `a "quoted" #2 name`}
	if len(got) != len(want) {
		t.Errorf("got %d threads %v, want %d", len(got), got, len(want))
	}
	for id, name := range want {
		if got[id] != name {
			t.Errorf("thread %d: got %q, want %q", id, got[id], name)
		}
	}
}

func TestNamesAt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var n Names
	ms := func(d int) time.Time { return t0.Add(time.Duration(d) * time.Millisecond) }
	n.Add(ms(0), ms(100), map[int64]string{7: "task A"})
	n.Add(ms(1000), ms(1100), map[int64]string{7: "task A", 8: "other"})
	n.Add(ms(2000), ms(2100), map[int64]string{7: "task B"})
	for _, tc := range []struct {
		tid  int64
		at   int
		want string
	}{
		{7, -1000, "task A"},    // before the first dump
		{7, 500, "task A"},      // both neighbours agree
		{7, 1050, BetweenTasks}, // inside a dump: the dumps around it differ
		{7, 1500, BetweenTasks}, // renamed in between
		{7, 2050, BetweenTasks}, // inside the dump after the rename
		{7, 5000, "task B"},     // after the last dump
		{8, 1050, "other"},      // seen once, t inside that dump
		{8, 0, "other"},
		{9, 0, ""},
	} {
		if got := n.At(tc.tid, ms(tc.at)); got != tc.want {
			t.Errorf("At(%d, t0%+dms) = %q, want %q", tc.tid, tc.at, got, tc.want)
		}
	}
}

// TestStageAt: a sample between dumps naming two tasks of one stage
// belongs to that stage; tasks of two stages, or of two attempts of one,
// or a thread that is not a task's, leave it unattributed.
func TestStageAt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(d int) time.Time { return t0.Add(time.Duration(d) * time.Millisecond) }
	task := func(part, stage, attempt, tid int) string {
		return fmt.Sprintf("Executor task launch worker for task %d.0 in stage %d.%d (TID %d)", part, stage, attempt, tid)
	}
	var n Names
	n.Add(ms(0), ms(10), map[int64]string{1: task(0, 2, 0, 10), 2: task(0, 2, 0, 11), 3: task(0, 2, 0, 12), 4: "main"})
	n.Add(ms(500), ms(510), map[int64]string{1: task(3, 2, 0, 15), 2: task(0, 3, 0, 20), 3: task(1, 2, 1, 30), 4: task(0, 2, 0, 13)})
	for _, tc := range []struct {
		tid   int64
		stage int
		ok    bool
	}{
		{1, 2, true},  // two tasks of stage 2.0
		{2, 0, false}, // stage 2 then stage 3
		{3, 0, false}, // stage 2.0 then its retry 2.1
		{4, 0, false}, // not a task's thread before
		{5, 0, false}, // never seen
	} {
		got, ok := n.StageAt(tc.tid, ms(250))
		if ok != tc.ok || ok && (got.Stage != tc.stage || got.TID != -1) {
			t.Errorf("thread %d: got %+v %v, want stage %d %v", tc.tid, got, ok, tc.stage, tc.ok)
		}
	}
	if got := n.At(1, ms(250)); got != BetweenTasks {
		t.Errorf("At: got %q, want %q (the task is not known)", got, BetweenTasks)
	}
}

func TestFrameName(t *testing.T) {
	for _, tc := range []struct{ class, method, want string }{
		{"Work$$Lambda$84+0x00007f4d9c007c28.715521683", "run", "Work$$Lambda.run"},
		{"org.apache.spark.sql.catalyst.expressions.GeneratedClass$GeneratedIteratorForCodegenStage1", "processNext", "org.apache.spark.sql.catalyst.expressions.GeneratedClass$GeneratedIteratorForCodegenStage1.processNext"},
		{"java.lang.invoke.LambdaForm$MH+0x0000000800c0d400.1234", "invoke", "java.lang.invoke.LambdaForm$MH.invoke"},
	} {
		if got := frameName(jfr.Frame{Class: tc.class, Method: tc.method}); got != tc.want {
			t.Errorf("frameName(%s.%s) = %q, want %q", tc.class, tc.method, got, tc.want)
		}
	}
}
