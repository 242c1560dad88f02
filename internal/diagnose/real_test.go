package diagnose_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func diagnoseShared(t *testing.T, rel ...string) []diagnose.Finding {
	t.Helper()
	return diagnoseFile(t, sparktest.Path(t, rel...))
}

func diagnoseFile(t *testing.T, path string) []diagnose.Finding {
	t.Helper()
	logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := replay.Log(context.Background(), logs[0], replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return diagnose.Run(&diagnose.Pass{Attempt: a, Result: analyze.Analyze(a)}, diagnose.All)
}

// taskEnd is what the cross-checks read from raw SparkListenerTaskEnd lines.
type taskEnd struct {
	Event   string
	StageID int `json:"Stage ID"`
	Reason  struct {
		Reason     string
		ClassName  string `json:"Class Name"`
		KillReason string `json:"Kill Reason"`
		ExecutorID string `json:"Executor ID"`
	} `json:"Task End Reason"`
	Info struct {
		ExecutorID  string `json:"Executor ID"`
		Launch      int64  `json:"Launch Time"`
		Finish      int64  `json:"Finish Time"`
		Speculative bool
	} `json:"Task Info"`
}

// rawTaskEnds decodes the log's TaskEnd events independently of sparkevent.
func rawTaskEnds(t *testing.T, rel ...string) []taskEnd {
	t.Helper()
	fh, err := os.Open(sparktest.Path(t, rel...))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []taskEnd
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e taskEnd
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Event == "SparkListenerTaskEnd" {
			out = append(out, e)
		}
	}
	return out
}

func only(t *testing.T, fs []diagnose.Finding, rule string) diagnose.Finding {
	t.Helper()
	var got []diagnose.Finding
	for _, f := range fs {
		if f.Rule == rule {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("got %d %s findings, want 1:%s", len(got), rule, dump(fs))
	}
	return got[0]
}

func TestRealTaskFailures(t *testing.T) {
	rel := []string{"spark-events", "app-20161115172038-0000"}
	var failed, attempts int
	execs := map[string]bool{}
	classes := map[string]int{}
	for _, e := range rawTaskEnds(t, rel...) {
		if e.StageID != 0 {
			continue
		}
		attempts++
		if e.Reason.Reason != "Success" && e.Reason.Reason != "TaskKilled" {
			failed++
			execs[e.Info.ExecutorID] = true
			classes[e.Reason.ClassName]++
		}
	}
	// Every task succeeded on retry and the 10 failed attempts held no task
	// back more than a second of a 1m42s application: info, not a warning.
	f := only(t, diagnoseShared(t, rel...), "task-failures")
	if f.Severity != diagnose.Info || !slices.Equal(f.StageIDs, []int{0}) {
		t.Errorf("got %v on stages %v, want info on [0]", f.Severity, f.StageIDs)
	}
	var wantExecs []string
	for e := range execs {
		wantExecs = append(wantExecs, e)
	}
	sort.Strings(wantExecs)
	if !slices.Equal(f.ExecutorIDs, wantExecs) {
		t.Errorf("got executors %v, want %v", f.ExecutorIDs, wantExecs)
	}
	if f.Evidence["failedAttempts"] != failed || failed != 10 || f.Evidence["recoveredTasks"] != f.Evidence["tasks"] {
		t.Errorf("got %v failed attempts (%v of %v tasks recovered), log has %d of %d attempts failed",
			f.Evidence["failedAttempts"], f.Evidence["recoveredTasks"], f.Evidence["tasks"], failed, attempts)
	}
	if f.Evidence["exception"] != "java.lang.RuntimeException" || f.Evidence["message"] != "bad exec" ||
		classes["java.lang.RuntimeException"] != failed {
		t.Errorf("got exception %v: %v, log has %v", f.Evidence["exception"], f.Evidence["message"], classes)
	}
	if f.Evidence["userFile"] != "<console>" || f.Evidence["userLine"] != 26 {
		t.Errorf("got user frame %v:%v, want <console>:26", f.Evidence["userFile"], f.Evidence["userLine"])
	}
}

func TestRealExecutorLost(t *testing.T) {
	rel := []string{"extra", "historical", "spark-events", "application_1538416563558_0014"}
	stages := map[int]bool{}
	lost := map[string]bool{}
	for _, e := range rawTaskEnds(t, rel...) {
		if e.Reason.Reason == "ExecutorLostFailure" {
			stages[e.StageID] = true
			lost[e.Reason.ExecutorID] = true
		}
	}
	f := only(t, diagnoseShared(t, rel...), "executor-lost")
	if f.Severity != diagnose.Critical {
		t.Errorf("got %v, want critical (8 executors lost)", f.Severity)
	}
	if want := []string{"1", "2", "3", "4", "5", "6", "7", "8"}; !slices.Equal(f.ExecutorIDs, want) {
		t.Errorf("got executors %v, want %v", f.ExecutorIDs, want)
	}
	for _, id := range f.ExecutorIDs {
		if !lost[id] {
			t.Errorf("executor %s has no ExecutorLostFailure in the log", id)
		}
	}
	var wantStages []int
	for s := range stages {
		wantStages = append(wantStages, s)
	}
	sort.Ints(wantStages)
	if !slices.Equal(f.StageIDs, wantStages) {
		t.Errorf("got stages %v, want %v", f.StageIDs, wantStages)
	}
	if f.Evidence["exitCode"] != 56 || f.Evidence["cause"] != "heartbeat" || f.Evidence["lostExecutors"] != 8 ||
		f.Evidence["failedTasks"] != len(lost) {
		t.Errorf("got evidence %v, want exit 56, heartbeat, 8 lost, %d failed tasks", f.Evidence, len(lost))
	}
}

func TestRealSpeculation(t *testing.T) {
	rel := []string{"spark-events", "application_1628109047826_1317105"}
	var wasted int64
	for _, e := range rawTaskEnds(t, rel...) {
		if e.Reason.Reason == "TaskKilled" && e.Reason.KillReason == "another attempt succeeded" {
			wasted += e.Info.Finish - e.Info.Launch
		}
	}
	f := only(t, diagnoseShared(t, rel...), "speculation-waste")
	// The stage lasted about 64 s, under the 2-min gate: info, not warning.
	if f.Severity != diagnose.Info || !slices.Equal(f.StageIDs, []int{0}) {
		t.Errorf("got %v on %v, want info on [0]", f.Severity, f.StageIDs)
	}
	if f.Evidence["wastedMs"] != wasted || wasted != 53201 || f.Evidence["speculativeAttempts"] != 1 {
		t.Errorf("got evidence %v, want wastedMs %d (53201), 1 speculative attempt", f.Evidence, wasted)
	}
}

// TestRealCleanLogs: small healthy runs must not get a warning or worse.
func TestRealCleanLogs(t *testing.T) {
	for _, rel := range [][]string{
		{"spark-events", "local-1430917381534"},
		{"spark-events", "local-1422981759269"},
		{"spark-events", "local-1426533911241"},
		{"spark-events", "local-1642039451826"},
		{"spark-events", "app-20200706201101-0003"},
		{"spark-events", "application_1553914137147_0018"},
		{"spark-events", "eventlog_v2_local-1766844910796"},
		{"extra", "sql-core-spark-events", "local-1596020211915"},
	} {
		t.Run(rel[len(rel)-1], func(t *testing.T) {
			fs := diagnoseShared(t, rel...)
			if w := diagnose.Worst(fs); w > diagnose.Info {
				t.Errorf("got %v findings on a clean run:%s", w, dump(fs))
			}
		})
	}
}

// TestSlowWriteOfSmallFiles: the real slow-output-write scenario writes
// 6,400 small files; on both Spark lines the report has one finding for
// it, the slow write, naming the small files as its cause and pointing
// at their recipe.
func TestSlowWriteOfSmallFiles(t *testing.T) {
	logs, _ := filepath.Glob("../../testdata/scenarios/slow-output-write/spark-*/*.zstd")
	if len(logs) < 2 {
		t.Fatalf("got %d scenario logs, want one per Spark line", len(logs))
	}
	for _, log := range logs {
		fs := diagnoseFile(t, log)
		var rules []string
		for _, f := range fs {
			rules = append(rules, f.Rule)
		}
		if len(fs) != 1 || fs[0].Rule != diagnose.SlowOutputWrite.ID {
			t.Fatalf("%s: got findings %v, want slow-output-write alone", log, rules)
		}
		if f := fs[0]; !strings.Contains(f.Detail, "6400 files") || !strings.HasSuffix(f.Recipe, "#small-files") {
			t.Errorf("%s: got %q (recipe %s), want the small files named as the cause and their recipe", log, f.Detail, f.Recipe)
		}
	}
}
