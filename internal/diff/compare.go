// Package diff owns the sparkdx.diff/v1 document: two runs of an
// application compared, as `sparkdx diff --format json` writes it and
// serve's compare API returns it. Compare builds it from each run's
// sparkdx.report/v1 document and analysis; the renderers
// (internal/report) only show it. Its JSON field names are a public
// contract, like the report's (DESIGN.md).
//
// Stage ids are no use across runs (a changed plan renumbers every later
// stage), so stages are matched on what the code says, in the order the
// runs ran them (Stages).
package diff

import (
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// Schema is the diff JSON document's schema id.
const Schema = "sparkdx.diff/v1"

// Diff compares two runs of an application: "I switched to LEFT SEMI
// JOIN, did it help?". Times are milliseconds, sizes bytes.
type Diff struct {
	Schema   string         `json:"schema"`
	Before   Run            `json:"before"`
	After    Run            `json:"after"`
	Phases   []Change       `json:"phases"` // wall time, then the four phases
	Totals   []Change       `json:"totals"`
	Matching string         `json:"matching"` // how stages were matched
	Stages   []StageChange  `json:"stages"`   // in run order; removed stages where they ran
	Findings FindingChanges `json:"findings"`
	// Config is the tuned properties that differ, the most consequential
	// first (ConfigChanges).
	Config []ConfigChange `json:"config"`
}

// Run identifies one side of the comparison.
type Run struct {
	Log        string `json:"log"`
	AppID      string `json:"appId"`
	AttemptID  string `json:"attemptId"`
	Name       string `json:"name"`
	StartTime  int64  `json:"startTime"`
	DurationMs int64  `json:"durationMs"`
	Completed  bool   `json:"completed"`
}

// Change is one number before and after. Unit says how to read it: "ms",
// "bytes" or "count".
type Change struct {
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Before int64  `json:"before"`
	After  int64  `json:"after"`
	Delta  int64  `json:"delta"`
	// Ratio is After ÷ Before; 0 when Before is 0.
	Ratio float64 `json:"ratio"`
}

func change(name, unit string, before, after int64) Change {
	c := Change{Name: name, Unit: unit, Before: before, After: after, Delta: after - before}
	if before != 0 {
		c.Ratio = float64(after) / float64(before)
	}
	return c
}

// StageSide is one stage (every attempt summed) in one run.
type StageSide struct {
	StageIDs          []int   `json:"stageIds"`
	Name              string  `json:"name"`
	Attempts          int     `json:"attempts"`
	DurationMs        int64   `json:"durationMs"`
	TaskTimeMs        int64   `json:"taskTimeMs"`
	Tasks             int     `json:"tasks"`
	FailedTasks       int     `json:"failedTasks"`
	TaskP50Ms         int64   `json:"taskP50Ms"` // of the last attempt
	TaskMaxMs         int64   `json:"taskMaxMs"`
	SkewDuration      float64 `json:"skewDuration"`
	GCTimeMs          int64   `json:"gcTimeMs"`
	InputBytes        int64   `json:"inputBytes"`
	OutputBytes       int64   `json:"outputBytes"`
	ShuffleReadBytes  int64   `json:"shuffleReadBytes"`
	ShuffleWriteBytes int64   `json:"shuffleWriteBytes"`
	SpillBytes        int64   `json:"diskSpilledBytes"`
}

func (s *StageSide) add(st analyze.Stage) {
	s.Attempts++
	s.DurationMs += st.DurationMs
	s.TaskTimeMs += st.TaskTimeMs
	s.Tasks += st.Attempts
	s.FailedTasks += st.Failed
	s.TaskP50Ms, s.TaskMaxMs, s.SkewDuration = st.TaskDurationMs.P50, st.TaskDurationMs.Max, st.SkewDuration
	s.GCTimeMs += st.GCTimeMs
	s.InputBytes += st.InputBytes
	s.OutputBytes += st.OutputBytes
	s.ShuffleReadBytes += st.ShuffleReadBytes
	s.ShuffleWriteBytes += st.ShuffleWriteBytes
	s.SpillBytes += st.DiskSpilledBytes
}

// StageChange is one stage in both runs (matched), or one run (added or
// removed).
type StageChange struct {
	Match   string     `json:"match"` // how it was matched; "" when added or removed
	Status  string     `json:"status"`
	Before  *StageSide `json:"before"` // nil when added
	After   *StageSide `json:"after"`  // nil when removed
	DeltaMs int64      `json:"deltaMs"`
}

// Stage change statuses.
const (
	StageMatched = "matched"
	StageAdded   = "added"
	StageRemoved = "removed"
)

// FindingChanges sorts the findings of both runs.
type FindingChanges struct {
	Added   []FindingChange `json:"added"`   // only after
	Removed []FindingChange `json:"removed"` // only before: fixed
	Kept    []FindingChange `json:"kept"`    // in both (severity may differ)
}

// FindingChange is a finding of one or both runs.
type FindingChange struct {
	Rule           string `json:"rule"`
	Title          string `json:"title"`
	Detail         string `json:"detail"`
	BeforeSeverity string `json:"beforeSeverity"` // "" when only after
	AfterSeverity  string `json:"afterSeverity"`  // "" when only before
	StageIDs       []int  `json:"stageIds"`       // in the run it is from (after, when in both)
	Recipe         string `json:"recipe"`
}

// Input is one analyzed run as Compare reads it: its sparkdx.report/v1
// document (log, app, findings) and the analysis behind it (every stage
// attempt).
type Input struct {
	Report *reportv1.Report
	Result *analyze.Result
}

// Compare computes the difference between two analyzed runs.
func Compare(before, after Input) *Diff {
	d := &Diff{Schema: Schema, Before: runOf(before), After: runOf(after), Matching: MatchDescription,
		Stages: []StageChange{}}
	rb, ra := before.Result, after.Result
	d.Phases = []Change{
		change("wall time", "ms", rb.DurationMs, ra.DurationMs),
		change("resource wait", "ms", rb.Phases.ResourceWaitMs, ra.Phases.ResourceWaitMs),
		change("compute", "ms", rb.Phases.ComputeMs, ra.Phases.ComputeMs),
		change("output write", "ms", rb.Phases.OutputWriteMs, ra.Phases.OutputWriteMs),
		change("driver only", "ms", rb.Phases.DriverOnlyMs, ra.Phases.DriverOnlyMs),
	}
	d.Totals = totals(rb, ra)
	sb, sa := stagesOf(rb), stagesOf(ra)
	stageIndex := map[int]int{} // before stage id → after stage id
	for _, p := range matchStages(sb, sa) {
		c := StageChange{Match: p.How}
		switch {
		case p.Before >= 0 && p.After >= 0:
			c.Status = StageMatched
			c.Before, c.After = side(sb[p.Before]), side(sa[p.After])
			c.DeltaMs = c.After.DurationMs - c.Before.DurationMs
			stageIndex[sb[p.Before].StageIDs[0]] = sa[p.After].StageIDs[0]
		case p.Before >= 0:
			c.Status, c.Before = StageRemoved, side(sb[p.Before])
			c.DeltaMs = -c.Before.DurationMs
		default:
			c.Status, c.After = StageAdded, side(sa[p.After])
			c.DeltaMs = c.After.DurationMs
		}
		d.Stages = append(d.Stages, c)
	}
	d.Findings = compareFindings(before.Report.Findings, after.Report.Findings, stageIndex)
	d.Config = ConfigChanges(rb, ra, d.Stages)
	return d
}

func runOf(in Input) Run {
	a := in.Report.App
	return Run{Log: in.Report.Log.Path, AppID: a.ID, AttemptID: a.AttemptID, Name: a.Name,
		StartTime: a.StartTime, DurationMs: in.Result.DurationMs, Completed: a.Completed}
}

func side(s diffStage) *StageSide {
	out := s.sums
	out.StageIDs, out.Name = s.StageIDs, s.Name
	return &out
}

func totals(b, a *analyze.Result) []Change {
	sum := func(r *analyze.Result) (t StageSide) {
		for _, s := range r.Stages {
			t.add(s)
		}
		return t
	}
	tb, ta := sum(b), sum(a)
	return []Change{
		change("task time", "ms", tb.TaskTimeMs, ta.TaskTimeMs),
		change("critical path", "ms", b.CriticalPath.CriticalPathMs, a.CriticalPath.CriticalPathMs),
		change("GC time", "ms", tb.GCTimeMs, ta.GCTimeMs),
		change("input", "bytes", tb.InputBytes, ta.InputBytes),
		change("output", "bytes", tb.OutputBytes, ta.OutputBytes),
		change("shuffle read", "bytes", tb.ShuffleReadBytes, ta.ShuffleReadBytes),
		change("shuffle write", "bytes", tb.ShuffleWriteBytes, ta.ShuffleWriteBytes),
		change("disk spill", "bytes", tb.SpillBytes, ta.SpillBytes),
		change("stages", "count", int64(len(stagesOf(b))), int64(len(stagesOf(a)))),
		change("task attempts", "count", int64(tb.Tasks), int64(ta.Tasks)),
		change("failed tasks", "count", int64(tb.FailedTasks), int64(ta.FailedTasks)),
		change("max executors", "count", int64(b.CriticalPath.MaxExecutors), int64(a.CriticalPath.MaxExecutors)),
	}
}

// compareFindings pairs findings of the same rule about the same stages
// (stage ids of the before run mapped through the stage matching), or of
// the same rule when neither names a stage.
func compareFindings(before, after []diagnose.Finding, stageIndex map[int]int) FindingChanges {
	out := FindingChanges{Added: []FindingChange{}, Removed: []FindingChange{}, Kept: []FindingChange{}}
	used := make([]bool, len(after))
	for _, fb := range before {
		mapped := map[int]bool{}
		for _, id := range fb.StageIDs {
			if to, ok := stageIndex[id]; ok {
				mapped[to] = true
			}
		}
		match := -1
		for j, fa := range after {
			if used[j] || fa.Rule != fb.Rule {
				continue
			}
			if len(fb.StageIDs) == 0 && len(fa.StageIDs) == 0 {
				match = j
				break
			}
			for _, id := range fa.StageIDs {
				if mapped[id] {
					match = j
				}
			}
			if match >= 0 {
				break
			}
		}
		if match < 0 {
			out.Removed = append(out.Removed, findingChange(fb, fb.Severity.String(), ""))
			continue
		}
		used[match] = true
		out.Kept = append(out.Kept, findingChange(after[match], fb.Severity.String(), after[match].Severity.String()))
	}
	for j, fa := range after {
		if !used[j] {
			out.Added = append(out.Added, findingChange(fa, "", fa.Severity.String()))
		}
	}
	bySeverity := func(fs []FindingChange) {
		sort.SliceStable(fs, func(i, j int) bool {
			return sevRank(fs[i]) > sevRank(fs[j])
		})
	}
	bySeverity(out.Added)
	bySeverity(out.Removed)
	bySeverity(out.Kept)
	return out
}

func sevRank(f FindingChange) diagnose.Severity {
	b, _ := diagnose.ParseSeverity(f.BeforeSeverity)
	a, _ := diagnose.ParseSeverity(f.AfterSeverity)
	return max(a, b)
}

func findingChange(f diagnose.Finding, before, after string) FindingChange {
	ids := f.StageIDs
	if ids == nil {
		ids = []int{}
	}
	return FindingChange{Rule: f.Rule, Title: f.Title, Detail: f.Detail, BeforeSeverity: before,
		AfterSeverity: after, StageIDs: ids, Recipe: f.Recipe}
}
