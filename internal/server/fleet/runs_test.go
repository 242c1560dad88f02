package fleet

import (
	"testing"

	"github.com/sparkdx/sparkdx/internal/server/store"
)

// TestProcessUsage: the peak of each type is per process, CPU from the
// modes summed over consecutive samples, a counter that went down (a
// worker exited) skipped, one sample gives no CPU.
func TestProcessUsage(t *testing.T) {
	s := func(exec, metric string, sec int64, v float64) store.Sample {
		return store.Sample{AppID: "a", ExecutorID: exec, Metric: metric, Time: sec * 1000, Value: v}
	}
	got := processUsage([]store.Sample{
		s("driver", "process.memory.usage", 0, 100),
		s("1", "process.cpu.time{user}", 0, 10), s("1", "process.cpu.time{system}", 0, 2),
		s("1", "process.cpu.time{user}", 4, 14), s("1", "process.cpu.time{system}", 4, 4), // 6 s of CPU in 4 s
		s("2", "process.cpu.time{user}", 0, 50), s("2", "process.cpu.time{user}", 4, 1), // restarted
		s("1", "sparkdx.process.tree.cpu.time{python,user}", 0, 5),
		s("driver", "sparkdx.process.launcher.cpu.time{user}", 0, 9), s("driver", "sparkdx.process.launcher.cpu.time{user}", 10, 3),
	})
	if len(got) != 4 {
		t.Fatalf("got %+v, want driver, executor, python and launcher rows", got)
	}
	if l := got[3]; l.Type != "launcher" || l.MaxCPUCores != nil {
		t.Errorf("launcher: got %+v, want no CPU from a counter that went down", l)
	}
	if d := got[0]; d.Type != "driver" || d.MaxCPUCores != nil || d.MaxRSSBytes == nil || d.MaxRSSBytes.Value != 100 {
		t.Errorf("driver: got %+v, want RSS 100 and no CPU", d)
	}
	if e := got[1]; e.Type != "executor" || e.Processes != 2 || e.MaxCPUCores == nil || e.MaxCPUCores.Value != 1.5 ||
		e.MaxCPUCores.ExecutorID != "1" || e.MaxRSSBytes != nil {
		t.Errorf("executor: got %+v, want 2 processes, 1.5 cores on executor 1, no RSS", e)
	}
	if p := got[2]; p.Type != "python" || p.MaxCPUCores != nil {
		t.Errorf("python: got %+v, want no CPU from one sample", p)
	}
}

// TestRunSummary: a run's status, times, counts and worst finding from its
// attempts.
func TestRunSummary(t *testing.T) {
	run := &store.Run{ID: "r", Name: "n", Source: "sparkdx"}
	att := func(id, attempt, status string, start, dur int64, sev ...string) AppSummary {
		a := AppSummary{ID: id, AttemptID: attempt, Name: id, Status: status, StartTime: start, DurationMs: dur, Run: run}
		for _, s := range sev {
			a.Findings = append(a.Findings, Finding{Rule: "x", Severity: s, Title: s + " of " + id})
		}
		for i := range a.Findings {
			if a.Worst == nil || severityRank[a.Findings[i].Severity] > severityRank[a.Worst.Severity] {
				a.Worst = &a.Findings[i]
			}
		}
		return a
	}
	tests := []struct {
		name       string
		atts       []AppSummary
		status     string
		apps       int
		start, end int64
		worst      string
		findings   int
	}{
		{name: "completed", atts: []AppSummary{att("a", "", "completed", 1000, 500, "info"), att("b", "", "completed", 800, 100, "warning", "info")},
			status: "completed", apps: 2, start: 800, end: 1500, worst: "warning of b", findings: 3},
		{name: "two attempts are one app", atts: []AppSummary{att("a", "2", "completed", 3000, 10), att("a", "1", "incomplete", 1000, 50, "critical")},
			status: "incomplete", apps: 1, start: 1000, end: 3010, worst: "critical of a", findings: 1},
		{name: "running wins", atts: []AppSummary{att("a", "", "incomplete", 1000, 10), att("b", "", "running", 2000, 700)},
			status: "running", apps: 2, start: 1000, end: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runSummary(tc.atts)
			worst := ""
			if r.Worst != nil {
				worst = r.Worst.Title
			}
			if r.Status != tc.status || r.Apps != tc.apps || r.Attempts != len(tc.atts) || r.StartTime != tc.start ||
				r.EndTime != tc.end || worst != tc.worst || r.Findings != tc.findings {
				t.Errorf("got %s, %d apps, %d attempts, %d–%d, worst %q, %d findings; want %s, %d, %d, %d–%d, %q, %d",
					r.Status, r.Apps, r.Attempts, r.StartTime, r.EndTime, worst, r.Findings,
					tc.status, tc.apps, len(tc.atts), tc.start, tc.end, tc.worst, tc.findings)
			}
			if tc.end > 0 && r.DurationMs != tc.end-tc.start || tc.end < 0 && r.DurationMs != 1700 {
				t.Errorf("duration %d", r.DurationMs)
			}
		})
	}
}
