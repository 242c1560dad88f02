package regress

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diff"
)

// Cause kinds, in the order Explain lists them when they weigh the same.
const (
	CauseInput     = "input-grown"       // the run read more
	CauseConfig    = "config-changed"    // tuned properties differ
	CauseResources = "resources-changed" // fewer executors or cores, or longer waits for them
	CauseFailures  = "failures"          // failed tasks, stages or lost executors appeared
	CauseStages    = "stages-grown"      // matched stages took longer
)

// Cause is one reason a run regressed, with the numbers behind it.
type Cause struct {
	Kind     string         `json:"kind"`
	Detail   string         `json:"detail"`
	Evidence map[string]any `json:"evidence"`
}

// growth is how much more a number must be to count as a cause.
const growth = 1.5

// Explain decomposes a regression: base is the baseline's median run,
// run the regressed one, b the baseline (its median input and shuffle
// bytes judge input growth against the history, not one run).
func Explain(b Baseline, base, run diff.Input) []Cause {
	d := diff.Compare(base, run)
	rb, ra := base.Result, run.Result
	var out []Cause
	now := SampleOf(b.Key, run.Report)
	if med, in := b.Input.Median, now.InputBytes; med > 0 && float64(in) >= growth*med {
		out = append(out, Cause{Kind: CauseInput, Detail: fmt.Sprintf("read %.1f× the input of the job's median run", float64(in)/med),
			Evidence: map[string]any{"inputBytes": in, "baselineInputBytes": med}})
	} else if med, sh := b.Shuffle.Median, now.ShuffleBytes; med > 0 && float64(sh) >= growth*med && len(d.Config) == 0 {
		out = append(out, Cause{Kind: CauseInput, Detail: fmt.Sprintf("shuffled %.1f× the job's median run", float64(sh)/med),
			Evidence: map[string]any{"shuffleBytes": sh, "baselineShuffleBytes": med}})
	}
	var keys []string
	for _, c := range d.Config {
		if !resourceKey(c.Key) {
			keys = append(keys, fmt.Sprintf("%s %s → %s", c.Key, c.Before, c.After))
		}
	}
	if len(keys) > 0 {
		out = append(out, Cause{Kind: CauseConfig, Detail: strings.Join(keys, "; "),
			Evidence: map[string]any{"changes": len(keys)}})
	}
	if c, ok := resources(rb, ra); ok {
		out = append(out, c)
	}
	if c, ok := failures(rb, ra); ok {
		out = append(out, c)
	}
	if c, ok := grownStages(d); ok {
		out = append(out, c)
	}
	return out
}

// resourceKey tells the properties that set the executors apart: a change
// of them is a resource change.
func resourceKey(k string) bool {
	return k == "spark.executor.instances" || k == "spark.cores.max" || k == "spark.executor.cores" ||
		strings.HasPrefix(k, "spark.dynamicAllocation.")
}

// resources says whether the run had fewer executors or cores, or waited
// longer for them.
func resources(b, a *analyze.Result) (Cause, bool) {
	cb, ca := b.CriticalPath, a.CriticalPath
	waitGrew := a.Phases.ResourceWaitMs-b.Phases.ResourceWaitMs > max((a.DurationMs-b.DurationMs)/4, 5_000)
	if ca.MaxCores >= cb.MaxCores && ca.MaxExecutors >= cb.MaxExecutors && !waitGrew {
		return Cause{}, false
	}
	var parts []string
	if ca.MaxCores < cb.MaxCores || ca.MaxExecutors < cb.MaxExecutors {
		parts = append(parts, fmt.Sprintf("%d executors with %d cores against %d with %d", ca.MaxExecutors, ca.MaxCores, cb.MaxExecutors, cb.MaxCores))
	}
	if waitGrew {
		parts = append(parts, fmt.Sprintf("waited %s for executors against %s", fmtMs(a.Phases.ResourceWaitMs), fmtMs(b.Phases.ResourceWaitMs)))
	}
	return Cause{Kind: CauseResources, Detail: strings.Join(parts, "; "),
		Evidence: map[string]any{"executors": ca.MaxExecutors, "baselineExecutors": cb.MaxExecutors, "cores": ca.MaxCores,
			"baselineCores": cb.MaxCores, "resourceWaitMs": a.Phases.ResourceWaitMs, "baselineResourceWaitMs": b.Phases.ResourceWaitMs}}, true
}

// failures says whether failed tasks, stage attempts or lost executors
// appeared or grew.
func failures(b, a *analyze.Result) (Cause, bool) {
	count := func(r *analyze.Result) (tasks, stages, lost int) {
		for i := range r.Stages {
			tasks += r.Stages[i].Failed
			if r.Stages[i].AttemptID > 0 {
				stages++
			}
		}
		for i := range r.Executors {
			if c := r.Executors[i].Loss.Cause; c != analyze.CauseNone && c != analyze.CauseDriver && c != analyze.CauseIdle {
				lost++
			}
		}
		return tasks, stages, lost
	}
	tb, sb, lb := count(b)
	ta, sa, la := count(a)
	if ta <= tb && sa <= sb && la <= lb {
		return Cause{}, false
	}
	return Cause{Kind: CauseFailures, Detail: fmt.Sprintf("%d failed tasks, %d stage retries, %d executors lost (median run: %d, %d, %d)", ta, sa, la, tb, sb, lb),
		Evidence: map[string]any{"failedTasks": ta, "stageRetries": sa, "executorsLost": la}}, true
}

// grownStages names the matched stages that grew most, with their share of
// the wall time added.
func grownStages(d *diff.Diff) (Cause, bool) {
	var grown []diff.StageChange
	var total int64
	for _, c := range d.Stages {
		if c.Status == diff.StageMatched && c.DeltaMs > 0 {
			grown = append(grown, c)
			total += c.DeltaMs
		}
	}
	if len(grown) == 0 {
		return Cause{}, false
	}
	slices.SortStableFunc(grown, func(x, y diff.StageChange) int { return int(sign(y.DeltaMs - x.DeltaMs)) })
	var parts []string
	ids := []int{}
	for _, c := range grown[:min(len(grown), 3)] {
		parts = append(parts, fmt.Sprintf("%s %s → %s", oneName(c.After.Name), fmtMs(c.Before.DurationMs), fmtMs(c.After.DurationMs)))
		ids = append(ids, c.After.StageIDs...)
	}
	return Cause{Kind: CauseStages, Detail: fmt.Sprintf("%d matched stages grew by %s in all: %s", len(grown), fmtMs(total), strings.Join(parts, "; ")),
		Evidence: map[string]any{"grownMs": total, "stageIds": ids}}, true
}

func oneName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func fmtMs(ms int64) string {
	if ms < 60_000 {
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	}
	return fmt.Sprintf("%dm%02ds", ms/60_000, ms%60_000/1000)
}
