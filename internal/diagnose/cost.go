package diagnose

import (
	"fmt"
	"math"
)

// Cost is what a problem cost the application, in wall-clock time (how much
// sooner it would have finished without it) and in executor core time (what
// it used or left idle), beside the application's totals. Findings of one
// severity rank by its Share; rules gate on it so that a finding is worth a
// person's attention on the application at hand, whatever its size.
type Cost struct {
	WallMs    int64  `json:"wallMs"`
	CoreMs    int64  `json:"coreMs"`
	AppWallMs int64  `json:"appWallMs"` // the application's duration
	AppCoreMs int64  `json:"appCoreMs"` // executor core time it held (analyze.Result.CoreTimeMs)
	Basis     string `json:"basis"`     // how the cost is estimated, for a person
}

// minCostShare is the share of the application's wall or core time below
// which a problem is not worth a warning: under 5 % a fix changes nothing a
// person would notice on this application.
const minCostShare = 0.05

// criticalCostShare is the share of the application a problem must cost
// to be critical: a quarter of its wall or core time.
const criticalCostShare = 0.25

// minCostMs is the least wall time worth a warning at all, however short
// the application; minCoreCostMs the least core time (a cluster's cost).
const (
	minCostMs     = second
	minCoreCostMs = minute
)

// Share is the larger of the wall-time and core-time shares, in [0, 1];
// 0 for an unknown (nil) cost.
func (c *Cost) Share() float64 {
	if c == nil {
		return 0
	}
	s := 0.0
	if c.AppWallMs > 0 {
		s = float64(c.WallMs) / float64(c.AppWallMs)
	}
	if c.AppCoreMs > 0 {
		s = max(s, float64(c.CoreMs)/float64(c.AppCoreMs))
	}
	return math.Min(s, 1)
}

// Matters tells whether the cost is worth a warning: at least minCostShare
// of the application, and at least minCostMs of wall or minCoreCostMs of
// core time.
func (c *Cost) Matters() bool {
	return c.Share() >= minCostShare && c != nil && (c.WallMs >= minCostMs || c.CoreMs >= minCoreCostMs)
}

// String says the cost the way a finding states it: "~2m10s of 6m57s wall
// time (31 %)", or in core time when that is the larger share.
func (c *Cost) String() string {
	if c == nil || c.WallMs <= 0 && c.CoreMs <= 0 {
		return ""
	}
	wall := 0.0
	if c.AppWallMs > 0 {
		wall = float64(c.WallMs) / float64(c.AppWallMs)
	}
	core := 0.0
	if c.AppCoreMs > 0 {
		core = float64(c.CoreMs) / float64(c.AppCoreMs)
	}
	if c.WallMs > 0 && (wall >= core || c.CoreMs <= 0) {
		return fmt.Sprintf("~%s of %s wall time (%.0f%%)", fmtMs(c.WallMs), fmtMs(c.AppWallMs), 100*math.Min(wall, 1))
	}
	return fmt.Sprintf("~%s of %s executor core time (%.0f%%)", fmtMs(c.CoreMs), fmtMs(c.AppCoreMs), 100*math.Min(core, 1))
}

// cost builds a Cost against the pass's application totals.
func (p *Pass) cost(wallMs, coreMs int64, basis string) *Cost {
	return &Cost{WallMs: max(wallMs, 0), CoreMs: max(coreMs, 0), AppWallMs: p.Result.DurationMs,
		AppCoreMs: p.Result.CoreTimeMs(), Basis: basis}
}

// gate lowers a finding whose cost does not matter to info (the problem is
// there, but fixing it would not change this application) and a critical
// one that costs under criticalCostShare to a warning.
func gate(sev Severity, c *Cost) Severity {
	switch {
	case sev > Info && !c.Matters():
		return Info
	case sev == Critical && c.Share() < criticalCostShare:
		return Warning
	}
	return sev
}
