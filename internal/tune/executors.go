package tune

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// Executor count thresholds, on the what-if's estimates: halve when half
// the executors cost at most fewerSlowdown more wall time (their core
// time is saved), double when twice the executors save at least
// moreSpeedup of it.
const (
	fewerSlowdown = 0.10
	moreSpeedup   = 0.25
)

// executorCount moves the executor count along the what-if: fewer when
// the app would barely slow down, more when it would finish much sooner.
func executorCount(in *input) ([]Change, []Kept) {
	var actual, half, double *analyze.WhatIf
	for i := range in.res.WhatIf {
		w := &in.res.WhatIf[i]
		switch {
		case w.Actual:
			actual = w
		case w.Factor == 0.5:
			half = w
		case w.Factor == 2:
			double = w
		}
	}
	key, per := countProperty(in)
	if actual == nil || actual.Local || actual.EstimatedMs <= 0 || key == "" {
		return nil, []Kept{{"spark.executor.instances", "no what-if for this run (local mode, or no task ran)"}}
	}
	pick := func(w *analyze.WhatIf, why string) []Change {
		to := w.Executors
		if per > 0 {
			to = w.Cores
		}
		wall := w.EstimatedMs - actual.EstimatedMs
		// The executors are held for the whole app: core time scales
		// with the cores and with the new wall time.
		coreNow := float64(in.res.CoreTimeMs())
		scale := float64(w.Cores) / float64(max(actual.Cores, 1)) * float64(in.res.DurationMs+wall) / float64(max(in.res.DurationMs, 1))
		core := int64(coreNow*scale - coreNow)
		return []Change{{Property: key, From: in.setting(key), To: strconv.Itoa(to), Why: why,
			Evidence: map[string]any{"executors": actual.Executors, "cores": actual.Cores, "estimatedMs": w.EstimatedMs, "recordedMs": actual.EstimatedMs},
			Effect:   Effect{WallMs: wall, CoreMs: core, Basis: "the what-if: the recorded tasks rescheduled on that many executors, held for the app's new duration"},
			Risk:     "the what-if keeps each task's recorded duration: tasks that spilled or waited on shuffle may change with the count; more executors need the cluster to have them free"}}
	}
	if half != nil && half.Executors >= 1 && float64(half.EstimatedMs) <= float64(actual.EstimatedMs)*(1+fewerSlowdown) && half.Cores < actual.Cores {
		return pick(half, fmt.Sprintf("on %d executors instead of %d the what-if finishes within %.0f %% of the recorded time (%s)",
			half.Executors, actual.Executors, 100*fewerSlowdown, fmtMs(half.EstimatedMs))), nil
	}
	// On standalone without spark.cores.max the app took every free core
	// of the cluster: there are no more to give it.
	if key == "spark.cores.max" && in.setting(key) == "" {
		return nil, []Kept{{key, "unset: the app had every free core of the standalone cluster"}}
	}
	if double != nil && float64(double.EstimatedMs) <= float64(actual.EstimatedMs)*(1-moreSpeedup) {
		return pick(double, fmt.Sprintf("on %d executors instead of %d the what-if finishes in %s instead of %s",
			double.Executors, actual.Executors, fmtMs(double.EstimatedMs), fmtMs(actual.EstimatedMs))), nil
	}
	return nil, []Kept{{key, "the what-if changes the wall time little for more executors, and much for fewer"}}
}

// countProperty is the property that sets the executor count on this
// master: the total cores on standalone (per > 0: its value counts cores),
// the maximum with dynamic allocation, else spark.executor.instances.
func countProperty(in *input) (key string, per int) {
	switch {
	case in.res.Config.DynamicAllocation:
		return "spark.dynamicAllocation.maxExecutors", 0
	case strings.HasPrefix(in.res.Config.Master, "spark://"):
		return "spark.cores.max", 1
	case strings.HasPrefix(in.res.Config.Master, "local"):
		return "", 0
	}
	return "spark.executor.instances", 0
}

// fmtMs is a duration for a person: "4.2s", "3m10s".
func fmtMs(ms int64) string {
	if ms < 60_000 {
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	}
	return fmt.Sprintf("%dm%02ds", ms/60_000, ms%60_000/1000)
}
