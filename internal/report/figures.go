package report

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

// Figure is one headline number as every view shows it — the text and
// HTML reports and serve's app page — from analyze.Headline, where it is
// computed once: its name, its value, and what it is a share or a part
// of (its denominator), so that two views never show two numbers under
// one name.
type Figure struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Of    string `json:"of"`
}

// Figures are the headline numbers of r, in the order every view shows
// them.
func Figures(r *analyze.Result) []Figure {
	h := r.Headline
	cp := r.CriticalPath
	return []Figure{
		{"wall time", fmtDuration(h.DurationMs), "application start to end"},
		{"executors", fmt.Sprintf("%d at most", h.MaxExecutors), plural(h.MaxCores, "core") + " at most"},
		{"core time used", fmtPct(h.CoreTimeUsed),
			fmt.Sprintf("of executor core time held: %s of tasks in %s of cores × lifetime", fmtDuration(h.TaskTimeMs), fmtDuration(h.CoreTimeMs))},
		{"GC", fmtPct(h.GCShare), fmt.Sprintf("of executor run time: %s of %s", fmtDuration(h.GCTimeMs), fmtDuration(h.RunTimeMs))},
		cpuFigure(h),
		{"tasks", fmt.Sprintf("%d launched", h.Tasks.Launched), taskOutcomes(h.Tasks)},
		exitFigure(h.ExitCode),
		{"critical path", fmtDuration(cp.CriticalPathMs), "with unlimited executors"},
		{"ideal", fmtDuration(cp.IdealMs), "with the cores perfectly used"},
	}
}

// taskOutcomes says how the launched attempts ended.
func taskOutcomes(t analyze.TaskCounts) string {
	s := fmt.Sprintf("%d succeeded, %d failed, %d killed", t.Succeeded, t.Failed, t.Killed)
	if t.Unfinished > 0 {
		s += fmt.Sprintf(", %d unfinished", t.Unfinished)
	}
	if t.Speculative > 0 {
		s += fmt.Sprintf(" (%d speculative)", t.Speculative)
	}
	return s
}

// cpuFigure is the CPU share, unknown for logs that record no CPU time.
func cpuFigure(h analyze.Headline) Figure {
	if h.CPUTimeMs <= 0 {
		return Figure{"CPU", "unknown", "the log records no CPU time (Spark before 2.1)"}
	}
	return Figure{"CPU", fmtPct(h.CPUShare), "of executor run time (the rest waits on I/O, locks, GC)"}
}

// exitFigure is the application's exit code, unknown when its log has
// none (Spark writes it from 4.0).
func exitFigure(code *int) Figure {
	if code == nil {
		return Figure{"exit code", "unknown", "the log has none (Spark writes it from 4.0)"}
	}
	return Figure{"exit code", fmt.Sprint(*code), "the application's, as its end event says"}
}
