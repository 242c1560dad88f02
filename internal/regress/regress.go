// Package regress finds the runs of a recurring Spark job that regressed
// against the job's own history, and says why. A job is what an
// orchestrator runs again and again (JobKey); its baseline is the median
// and the median absolute deviation of its last successful runs (robust:
// one odd run does not move it); a run beyond both a ratio and a number
// of deviations of the median wall time regressed, and Explain decomposes
// the change against the baseline's median run with diff's stage matching
// and configuration change list.
package regress

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// Config sets when a run counts as regressed. Defaults (DefaultConfig)
// are documented in docs/regressions.md.
type Config struct {
	Runs    int     // the baseline is the last Runs successful runs
	MinRuns int     // fewer successful runs: no baseline yet
	Ratio   float64 // wall ÷ baseline median at least this
	Sigmas  float64 // and at least this many robust deviations above the median
	// MinDeltaMs is the least wall time a regression adds: a job of
	// seconds that takes a second more has not regressed.
	MinDeltaMs int64
}

// DefaultConfig is 10 runs, 3 at least, 1.2× and 3 deviations, 10 s: a
// run a fifth slower than usual, well outside its usual spread.
func DefaultConfig() Config {
	return Config{Runs: 10, MinRuns: 3, Ratio: 1.2, Sigmas: 3, MinDeltaMs: 10_000}
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.Runs < 1 || c.MinRuns < 1 || c.MinRuns > c.Runs:
		return fmt.Errorf("regression baseline of %d runs, at least %d: want 1 ≤ min ≤ runs", c.Runs, c.MinRuns)
	case c.Ratio < 1 || math.IsNaN(c.Ratio) || math.IsInf(c.Ratio, 0):
		return errors.New("regression ratio: want a number ≥ 1")
	case c.Sigmas < 0 || math.IsNaN(c.Sigmas) || math.IsInf(c.Sigmas, 0):
		return errors.New("regression deviations: want a number ≥ 0")
	case c.MinDeltaMs < 0:
		return errors.New("regression minimum: want a duration ≥ 0")
	}
	return nil
}

// Sample is one run of a job, as the baseline keeps it.
type Sample struct {
	Key          string `json:"key"`
	AppID        string `json:"appId"`
	StartTime    int64  `json:"startTime"`
	Succeeded    bool   `json:"succeeded"`
	WallMs       int64  `json:"wallMs"`
	CoreMs       int64  `json:"coreMs"`
	InputBytes   int64  `json:"inputBytes"`
	ShuffleBytes int64  `json:"shuffleBytes"` // shuffle read
	// Status is the outcome: succeeded, failed, cancelled, incomplete.
	Status string `json:"status"`
	// Cost is what the run held, executors and driver: the total analyze
	// prints, with money when prices are given.
	Cost cost.Usage `json:"cost"`
}

// SampleOf takes the numbers of one analysed attempt from its
// sparkdx.report/v1 document, a run of the job key names (serve's
// fleet.JobKey: the one definition of a job). It is the one definition of
// a run's numbers: serve's job history reads it from the report it
// stored, Explain from the report it compares, and each is the figure
// `sparkdx diff` shows (wall time, the input and shuffle-read totals).
// The cost is the report's total, priced as the report was.
func SampleOf(key string, r *reportv1.Report) Sample {
	s := Sample{Key: key, AppID: r.App.ID, StartTime: r.App.StartTime, WallMs: r.App.DurationMs,
		Succeeded: r.Outcome.Status == "succeeded", Status: r.Outcome.Status}
	if r.Headline != nil {
		s.CoreMs = r.Headline.ExecutorCoreTimeMs
	}
	if r.ResourceCost != nil {
		s.Cost = r.ResourceCost.Total
	}
	for i := range r.Stages {
		s.InputBytes += r.Stages[i].InputBytes
		s.ShuffleBytes += r.Stages[i].ShuffleReadBytes
	}
	return s
}

// Stat is a robust centre and spread.
type Stat struct {
	Median float64 `json:"median"`
	MAD    float64 `json:"mad"` // median absolute deviation
}

// statOf computes the median and MAD of vs.
func statOf(vs []float64) Stat {
	if len(vs) == 0 {
		return Stat{}
	}
	m := median(vs)
	dev := make([]float64, len(vs))
	for i, v := range vs {
		dev[i] = math.Abs(v - m)
	}
	return Stat{Median: m, MAD: median(dev)}
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Baseline is a job's recent successful runs summarised.
type Baseline struct {
	Key     string `json:"key"`
	Runs    int    `json:"runs"`
	Wall    Stat   `json:"wallMs"`
	Core    Stat   `json:"coreMs"`
	Input   Stat   `json:"inputBytes"`
	Shuffle Stat   `json:"shuffleBytes"`
	// MedianRun is the run whose wall time is nearest the median: the one
	// Explain compares a regressed run with.
	MedianRun string `json:"medianRun"`
}

// BaselineOf builds the baseline from history (any order) of the runs
// before the one judged: its last cfg.Runs successful ones. ok is false
// with fewer than cfg.MinRuns.
func BaselineOf(history []Sample, cfg Config) (b Baseline, ok bool) {
	var ok2 []Sample
	for _, s := range history {
		if s.Succeeded {
			ok2 = append(ok2, s)
		}
	}
	slices.SortStableFunc(ok2, func(x, y Sample) int { return int(sign(x.StartTime - y.StartTime)) })
	if len(ok2) > cfg.Runs {
		ok2 = ok2[len(ok2)-cfg.Runs:]
	}
	if len(ok2) < cfg.MinRuns || len(ok2) == 0 {
		return Baseline{}, false
	}
	col := func(f func(Sample) int64) Stat {
		vs := make([]float64, len(ok2))
		for i, s := range ok2 {
			vs[i] = float64(f(s))
		}
		return statOf(vs)
	}
	b = Baseline{Key: ok2[0].Key, Runs: len(ok2), Wall: col(func(s Sample) int64 { return s.WallMs }),
		Core: col(func(s Sample) int64 { return s.CoreMs }), Input: col(func(s Sample) int64 { return s.InputBytes }),
		Shuffle: col(func(s Sample) int64 { return s.ShuffleBytes })}
	best := math.Inf(1)
	for _, s := range ok2 {
		if d := math.Abs(float64(s.WallMs) - b.Wall.Median); d < best {
			best, b.MedianRun = d, s.AppID
		}
	}
	return b, true
}

func sign(v int64) int64 {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// Verdict is one run judged against its job's baseline.
type Verdict struct {
	Regressed bool    `json:"regressed"`
	Ratio     float64 `json:"ratio"`      // wall ÷ the baseline's median wall
	CoreRatio float64 `json:"coreRatio"`  // core time ÷ its median
	Sigmas    float64 `json:"deviations"` // (wall − median) ÷ (1.4826 × MAD); +Inf for a MAD of 0
}

// verdictJSON is a Verdict as JSON, which has no infinity: deviations
// are null for a history without spread.
type verdictJSON struct {
	Regressed bool     `json:"regressed"`
	Ratio     float64  `json:"ratio"`
	CoreRatio float64  `json:"coreRatio"`
	Sigmas    *float64 `json:"deviations"`
}

// MarshalJSON writes infinite deviations as null: encoding/json refuses
// +Inf, and the job's whole answer with it.
func (v Verdict) MarshalJSON() ([]byte, error) {
	out := verdictJSON{Regressed: v.Regressed, Ratio: v.Ratio, CoreRatio: v.CoreRatio}
	if !math.IsInf(v.Sigmas, 0) && !math.IsNaN(v.Sigmas) {
		out.Sigmas = &v.Sigmas
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads null deviations back as +Inf.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var in verdictJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*v = Verdict{Regressed: in.Regressed, Ratio: in.Ratio, CoreRatio: in.CoreRatio, Sigmas: math.Inf(1)}
	if in.Sigmas != nil {
		v.Sigmas = *in.Sigmas
	}
	return nil
}

// madScale makes the MAD estimate a normal distribution's standard
// deviation.
const madScale = 1.4826

// Judge compares a run with its job's baseline.
func Judge(b Baseline, s Sample, cfg Config) Verdict {
	v := Verdict{Ratio: ratio(float64(s.WallMs), b.Wall.Median), CoreRatio: ratio(float64(s.CoreMs), b.Core.Median)}
	delta := float64(s.WallMs) - b.Wall.Median
	switch {
	case b.Wall.MAD > 0:
		v.Sigmas = delta / (madScale * b.Wall.MAD)
	case delta > 0:
		v.Sigmas = math.Inf(1)
	}
	v.Regressed = b.Wall.Median > 0 && v.Ratio >= cfg.Ratio && v.Sigmas >= cfg.Sigmas && delta >= float64(cfg.MinDeltaMs)
	return v
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
