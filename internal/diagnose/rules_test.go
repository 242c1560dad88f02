package diagnose_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
)

var update = flag.Bool("update", false, "rewrite the testdata fixtures from fixtures_rules_test.go")

// want is what a rule must report on its fires.json fixture.
type want struct {
	severity    diagnose.Severity
	stageIDs    []int
	executorIDs []string
	evidence    map[string]any // subset; numbers compared as float64
}

var wants = map[string][]want{
	"resource-wait": {{severity: diagnose.Critical,
		evidence: map[string]any{"resourceWaitMs": 6*mn - 10*sec, "firstExecutorDelayMs": 6 * mn, "requestedExecutors": 10}}},
	"slow-output-write": {{severity: diagnose.Critical, stageIDs: []int{1},
		evidence: map[string]any{"jobCommitMs": 5 * mn, "filesWritten": 8, "bytesWritten": 8 * 512 * mb}}},
	"data-skew": {{severity: diagnose.Critical, stageIDs: []int{0},
		evidence: map[string]any{"maxTaskMs": 300 * sec, "medianTaskMs": 20 * sec, "durationMaxOverMedian": 15.0}}},
	"straggler-host": {{severity: diagnose.Critical, stageIDs: []int{0}, executorIDs: []string{"4"},
		evidence: map[string]any{"host": "host-4", "hostMedianMs": 400 * sec, "otherHostsMedianMs": 40 * sec, "ratio": 10.0}}},
	"spill": {{severity: diagnose.Critical, stageIDs: []int{0},
		evidence: map[string]any{"memorySpilledBytes": 3 * gb, "diskSpilledBytes": 512 * mb, "spillRatio": 0.75}}},
	"gpu-spill": {{severity: diagnose.Warning, stageIDs: []int{0},
		evidence: map[string]any{"deviceSpilledBytes": 16 * 1536 * mb, "diskSpilledBytes": 0, "spillToHostMs": 200 * sec,
			"retries": 3, "splitRetries": 3, "semaphoreWaitMs": 40 * sec}}},
	"oom-risk": {{severity: diagnose.Critical, executorIDs: []string{"2"},
		evidence: map[string]any{"peakJvmHeapBytes": 3994 * mb, "heapBytes": 4 * gb, "majorGcCount": 3}}},
	"executor-lost": {{severity: diagnose.Critical, stageIDs: []int{0}, executorIDs: []string{"2"},
		evidence: map[string]any{"cause": "container-memory", "failedTasks": 4, "lostExecutors": 1}}},
	"gc-pressure": {
		{severity: diagnose.Critical, stageIDs: []int{0}, evidence: map[string]any{"scope": "stage", "gcRatio": 0.5}},
		{severity: diagnose.Critical, executorIDs: []string{"1", "2"}, evidence: map[string]any{"scope": "app", "gcTimeMs": 300 * sec}}},
	"shuffle-bottleneck": {
		{severity: diagnose.Warning, stageIDs: []int{0}, evidence: map[string]any{"fetchWaitMs": 8 * 54 * sec, "fetchWaitRatio": 0.3}},
		// The re-attempt cost little of the application: a warning.
		{severity: diagnose.Warning, stageIDs: []int{1}, executorIDs: []string{"2"}, evidence: map[string]any{"fetchFailures": 1,
			"reattempted": true, "exception": "FetchFailed", "message": "Failed to connect to host-2/10.0.0.2:7337"}}},
	"small-files": {{severity: diagnose.Warning, stageIDs: []int{0},
		evidence: map[string]any{"files": 5000, "avgFileBytes": 500 * kb, "direction": "read"}}},
	"tiny-tasks": {{severity: diagnose.Critical, stageIDs: []int{0},
		evidence: map[string]any{"numTasks": 5200, "medianTaskMs": 120, "overheadMs": 5200 * 60}}},
	"low-parallelism": {{severity: diagnose.Critical, stageIDs: []int{0},
		evidence: map[string]any{"numTasks": 3, "cores": 16, "pRatio": 0.188}}},
	"task-failures": {{severity: diagnose.Critical, stageIDs: []int{0}, executorIDs: []string{"1"},
		evidence: map[string]any{"failedAttempts": 4, "maxAttemptsOneTask": 4, "exception": "java.io.IOException",
			"message": "Connection reset by peer", "failedJobs": []int{0}, "wastedMs": 20 * sec}}},
	"speculation-waste": {{severity: diagnose.Warning, stageIDs: []int{0},
		evidence: map[string]any{"wastedMs": 200 * sec, "speculativeAttempts": 4, "wins": 0}}},
	"idle-executors": {{severity: diagnose.Critical, executorIDs: []string{"1", "2", "3", "4"},
		evidence: map[string]any{"executors": 4}}},
	"join-explosion": {{severity: diagnose.Critical, stageIDs: []int{0},
		evidence: map[string]any{"outputRows": 2_000_000_000, "leftRows": 10_000_000, "rightRows": 5_000_000, "ratio": 200.0}}},
	"python-memory": {{severity: diagnose.Critical, executorIDs: []string{"1"},
		evidence: map[string]any{"pythonRssBytes": 450 * mb, "pythonBudgetBytes": 4 * gb / 10}}},
	"large-result-to-driver": {{severity: diagnose.Critical, stageIDs: []int{0},
		evidence: map[string]any{"resultBytes": 900 * mb, "maxResultSize": gb}}},
	"incomplete-app": {{severity: diagnose.Critical, stageIDs: []int{1}, evidence: map[string]any{"openStages": 1, "openJobs": 1}}},
	"driver-degradation": {{severity: diagnose.Critical, executorIDs: []string{"driver"},
		evidence: map[string]any{"oldGenAfterGcRatio": 0.97}}},
	"s3-dominated-write": {{severity: diagnose.Warning, stageIDs: []int{0},
		evidence: map[string]any{"path": "s3a://lake/events", "committer": "file", "taskCommitMs": 8 * 20 * sec,
			"jobCommitMs": mn, "storeMs": 8*20*sec + mn, "writeTimeMs": 8*mn + mn, "files": 8}}},
	"s3a-committer-bypassed": {{severity: diagnose.Warning, stageIDs: []int{0},
		evidence: map[string]any{"path": "s3a://lake/events", "format": "JSON", "files": 8, "configuredCommitter": "magic"}}},
	"streaming-behind": {{severity: diagnose.Warning, evidence: map[string]any{"queryName": "events", "batches": 12,
		"recentBatches": 6, "ratio": 0.8, "stateRows": 10}}},
}

// quietAllowsInfo names the rules whose quiet fixture may still give an
// info finding: recovered task failures are worth knowing about even when
// they cost nothing.
var quietAllowsInfo = map[string]bool{"task-failures": true}

func fixturePath(rule, name string) string { return filepath.Join("testdata", rule, name) }

// TestFixtures checks the fixture files are what fixtures_rules_test.go
// builds (or rewrites them with -update).
func TestFixtures(t *testing.T) {
	for rule, build := range fixtures {
		fires, quiet := build()
		for name, f := range map[string]*fx{"fires.json": fires, "quiet.json": quiet} {
			path := fixturePath(rule, name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, f.bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestFixtures -update)", err)
			}
			if !bytes.Equal(got, f.bytes()) {
				t.Errorf("%s is stale: run go test ./internal/diagnose -run TestFixtures -update", path)
			}
		}
	}
}

func replayFile(t *testing.T, path string) *model.Attempt {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	a, st, err := replay.Read(context.Background(), fh, replay.Options{Name: path, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.BadLines != 0 || len(st.Unknown) != 0 {
		t.Fatalf("%s: %d bad lines, unknown events %v", path, st.BadLines, st.Unknown)
	}
	return a
}

func ruleByID(t *testing.T, id string) *diagnose.Rule {
	t.Helper()
	for _, r := range diagnose.All {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no rule %q in All", id)
	return nil
}

// agentFor reads the agent samples next to a fixture, if any.
func agentFor(t *testing.T, rule, name string) *diagnose.AgentData {
	b, err := os.ReadFile(fixturePath(rule, name))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var ad diagnose.AgentData
	if err := json.Unmarshal(b, &ad); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &ad
}

func runRule(t *testing.T, rule, file, agent string) []diagnose.Finding {
	a := replayFile(t, fixturePath(rule, file))
	p := &diagnose.Pass{Attempt: a, Result: analyze.Analyze(a), Agent: agentFor(t, rule, agent)}
	return diagnose.Run(p, []*diagnose.Rule{ruleByID(t, rule)})
}

func TestRules(t *testing.T) {
	for _, r := range diagnose.All {
		t.Run(r.ID+"/fires", func(t *testing.T) {
			got := runRule(t, r.ID, "fires.json", "agent-fires.json")
			ws := wants[r.ID]
			if len(ws) == 0 {
				t.Fatalf("no expectation for %s", r.ID)
			}
			if len(got) != len(ws) {
				t.Fatalf("got %d findings, want %d: %s", len(got), len(ws), dump(got))
			}
			for i, w := range ws {
				checkFinding(t, got[i], w, r)
			}
		})
		t.Run(r.ID+"/quiet", func(t *testing.T) {
			got := runRule(t, r.ID, "quiet.json", "agent-quiet.json")
			if quietAllowsInfo[r.ID] && diagnose.Worst(got) <= diagnose.Info {
				return
			}
			if len(got) != 0 {
				t.Errorf("got %d findings, want none: %s", len(got), dump(got))
			}
		})
	}
}

func checkFinding(t *testing.T, f diagnose.Finding, w want, r *diagnose.Rule) {
	t.Helper()
	if f.Rule != r.ID || f.Recipe != r.Recipe {
		t.Errorf("got rule %q recipe %q, want %q %q", f.Rule, f.Recipe, r.ID, r.Recipe)
	}
	if f.Severity != w.severity {
		t.Errorf("got severity %v, want %v: %s", f.Severity, w.severity, f.Detail)
	}
	if w.stageIDs == nil {
		w.stageIDs = []int{}
	}
	if w.executorIDs == nil {
		w.executorIDs = []string{}
	}
	if !slices.Equal(f.StageIDs, w.stageIDs) {
		t.Errorf("got stage ids %v, want %v", f.StageIDs, w.stageIDs)
	}
	if !slices.Equal(f.ExecutorIDs, w.executorIDs) {
		t.Errorf("got executor ids %v, want %v", f.ExecutorIDs, w.executorIDs)
	}
	for k, v := range w.evidence {
		g, ok := f.Evidence[k]
		if !ok {
			t.Errorf("evidence %q missing: %v", k, f.Evidence)
			continue
		}
		if !sameValue(g, v) {
			t.Errorf("evidence %q: got %v, want %v", k, g, v)
		}
	}
	if f.Detail == "" || f.Title == "" {
		t.Errorf("got empty title or detail: %+v", f)
	}
}

// sameValue compares evidence values: numbers by value (ratios to 0.001),
// anything else by its printed form.
func sameValue(got, want any) bool {
	gf, gok := number(got)
	wf, wok := number(want)
	if gok && wok {
		d := gf - wf
		return d < 0.001 && d > -0.001
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func dump(fs []diagnose.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s stages=%v executors=%v %s %v", f.Severity, f.Rule, f.StageIDs, f.ExecutorIDs, f.Detail, f.Evidence)
	}
	return b.String()
}
