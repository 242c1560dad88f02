package report

import (
	"github.com/sparkdx/sparkdx/internal/profile"
	"sort"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// Input is everything the text and HTML renderers (and diff) show about
// one application attempt.
type Input struct {
	Report *reportv1.Report // the JSON document: log, app and findings
	Result *analyze.Result
	// Attempt is the replayed model, read for the task-level HTML charts
	// (duration heatmap, executor memory over time); nil leaves them empty.
	Attempt *model.Attempt
	// Profile is the application's CPU profile from the recordings found
	// for it (sparkdx analyze --profiles), ProfileFiles their names; nil
	// without any.
	Profile      *profile.Profile
	ProfileFiles []string
}

// NewInput builds a renderer input from a replayed attempt, its analysis,
// its findings and what was read.
func NewInput(a *model.Attempt, r *analyze.Result, findings []diagnose.Finding, log reportv1.Log) *Input {
	return &Input{Report: reportv1.Build(a, r, findings, log), Result: r, Attempt: a}
}

// sortedFindings orders findings most severe first, keeping the rules'
// order within a severity.
func sortedFindings(fs []diagnose.Finding) []diagnose.Finding {
	out := append([]diagnose.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity > out[j].Severity })
	return out
}
