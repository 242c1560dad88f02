// Package diagnose judges an analyzed Spark application: each Rule reads
// the analyze.Result (and the replayed model) and reports findings with a
// severity, the numbers behind them and a recipe. Rules are values listed
// in All, one per file, in the style of go/analysis passes; their
// thresholds and sources are documented in docs/recipes/rules.md.
package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/units"
)

// Severity ranks findings: info < warning < critical.
type Severity int

// Severities. The zero value means "no finding".
const (
	None Severity = iota
	Info
	Warning
	Critical
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Critical:
		return "critical"
	}
	return "none"
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// ParseSeverity reads "info", "warning" or "critical".
func ParseSeverity(name string) (Severity, error) {
	switch strings.ToLower(name) {
	case "info":
		return Info, nil
	case "warning":
		return Warning, nil
	case "critical":
		return Critical, nil
	}
	return None, fmt.Errorf("unknown severity %q (want info, warning or critical)", name)
}

// Threshold is one number a rule compares against, and why. Each rule
// declares its thresholds once, as package variables beside it: its Run
// grades with them (Level), Rule.Thresholds lists them for `sparkdx
// explain`, and the table in docs/recipes/rules.md is generated from them.
type Threshold struct {
	Metric   string  // what is measured
	Warning  float64 // value at which the finding is a warning
	Critical float64 // value at which it is critical
	Gate     string  // below this the rule stays silent (or info)
	Source   string  // where the numbers come from
}

// Level grades v against the threshold: at or above Warning (Critical) when
// higher is worse; below Warning (Critical) when lower is worse, that is
// when Warning is above Critical (tiny tasks, small files, PRatio). A zero
// Warning or Critical is not a level of this threshold.
func (t Threshold) Level(v float64) Severity {
	if t.Warning > t.Critical && t.Critical != 0 {
		switch {
		case v < t.Critical:
			return Critical
		case v < t.Warning:
			return Warning
		}
		return None
	}
	switch {
	case t.Critical != 0 && v >= t.Critical:
		return Critical
	case t.Warning != 0 && v >= t.Warning:
		return Warning
	}
	return None
}

// Rule is one diagnosis. Run reports findings; Run of diagnose.Run fills
// each finding's Rule, Recipe and (when empty) Title.
type Rule struct {
	ID         string // stable, from DESIGN.md
	Title      string
	Doc        string
	Recipe     string // path under docs/recipes/
	Thresholds []Threshold
	Run        func(p *Pass) []Finding
}

// Pass is what a rule reads.
type Pass struct {
	Attempt *model.Attempt
	Result  *analyze.Result
	Log     LogInfo
	Agent   *AgentData // nil without sparkdx agent samples
	// Commits are the writes joined to their committer's _SUCCESS
	// summary; nil unless summaries were read (analyze --output-summaries).
	Commits []analyze.CommittedWrite
}

// LogInfo is what the reader knows about the log file itself.
type LogInfo struct {
	InProgress bool      // .inprogress suffix
	Truncated  bool      // the last line was cut
	ModTime    time.Time // zero when unknown
	Now        time.Time // reference time for "log idle"; zero when unknown
}

// AgentData holds samples the sparkdx agent took on the driver's node.
type AgentData struct {
	Driver []DriverSample `json:"driver"` // in time order
}

// DriverSample is one sample of the driver JVM.
type DriverSample struct {
	Time            time.Time `json:"time"`
	GCTimeMs        int64     `json:"gcTimeMs"`        // cumulative GC time of every collector
	FullGC          bool      `json:"fullGc"`          // a full (old-generation) collection happened since the previous sample
	OldGenUsedBytes int64     `json:"oldGenUsedBytes"` // old generation used, after the last collection
	OldGenMaxBytes  int64     `json:"oldGenMaxBytes"`
	// Classes is how many classes the JVM holds (loaded minus unloaded:
	// hsperfdata's java.cls.*); 0 when not sampled.
	Classes int64 `json:"classes,omitempty"`
}

// Finding is one problem a rule found, with its evidence.
type Finding struct {
	Rule        string         `json:"rule"`
	Severity    Severity       `json:"severity"`
	Title       string         `json:"title"`
	Detail      string         `json:"detail"`
	StageIDs    []int          `json:"stageIds"`
	ExecutorIDs []string       `json:"executorIds"`
	Evidence    map[string]any `json:"evidence"`
	Recipe      string         `json:"recipe"`
	// Cost is what the problem cost the application; nil when the rule
	// cannot estimate it.
	Cost *Cost `json:"cost,omitempty"`
	// Parts are the stages (or executors) a folded finding covers, worst
	// first, each in the words and cost of the finding it was: what the
	// renderers list under the finding instead of its raw evidence.
	Parts []Part `json:"parts,omitempty"`
	// Group tells apart the causes one rule reports: the per-stage
	// findings of a rule fold into one per Title, Recipe and Group.
	Group string `json:"-"`
}

// Part is one stage or executor of a folded finding.
type Part struct {
	StageIDs    []int    `json:"stageIds"`
	ExecutorIDs []string `json:"executorIds"`
	Severity    Severity `json:"severity"`
	Detail      string   `json:"detail"`
	Cost        *Cost    `json:"cost,omitempty"`
}

// Run applies rules to a pass and returns their findings, most severe
// first, then those that failed jobs (why the application failed comes
// before what else it cost), then by cost (the share of the
// application's time the problem cost), then by rule order. A rule's per-stage findings of one cause
// fold into one finding that lists the stages (foldStages): a problem
// met on sixty stages is one thing to fix, not sixty. A slow write whose
// stages another finding explains is one finding naming that cause
// (attributeWrites).
func Run(p *Pass, rules []*Rule) []Finding {
	var out []Finding
	for _, r := range rules {
		fs := foldStages(r.Run(p))
		for i := range fs {
			f := &fs[i]
			f.Rule = r.ID
			if f.Recipe == "" { // a rule may point one finding at another recipe
				f.Recipe = r.Recipe
			}
			if f.Title == "" {
				f.Title = r.Title
			}
			if f.StageIDs == nil {
				f.StageIDs = []int{}
			}
			if f.ExecutorIDs == nil {
				f.ExecutorIDs = []string{}
			}
			if f.Evidence == nil {
				f.Evidence = map[string]any{}
			}
		}
		out = append(out, fs...)
	}
	out = attributeWrites(out)
	rank := map[string]int{}
	for i, r := range rules {
		rank[r.ID] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity != out[j].Severity {
			return out[i].Severity > out[j].Severity
		}
		if a, b := failsJobs(out[i]), failsJobs(out[j]); a != b {
			return a
		}
		if a, b := out[i].Cost.Share(), out[j].Cost.Share(); a != b {
			return a > b
		}
		return rank[out[i].Rule] < rank[out[j].Rule]
	})
	return out
}

// failsJobs tells whether a finding failed jobs (evidence failedJobs).
func failsJobs(f Finding) bool {
	jobs, _ := f.Evidence["failedJobs"].([]int)
	return len(jobs) > 0
}

// Worst is the highest severity among findings (None when empty).
func Worst(fs []Finding) Severity {
	w := None
	for _, f := range fs {
		w = max(w, f.Severity)
	}
	return w
}

// round keeps ratios readable in evidence.
func round(v float64) float64 {
	if v > 1e6 || v < -1e6 {
		return float64(int64(v))
	}
	return float64(int64(v*1000+0.5)) / 1000
}

const (
	second = int64(1000)
	minute = 60 * second
	mib    = int64(1) << 20
	gib    = int64(1) << 30
)

// fmtMs says a duration the way every report does: 46ms, 5.4s, 2m10s.
func fmtMs(ms int64) string { return units.Millis(ms) }

// stageRef names a stage attempt in text.
func stageRef(s *analyze.Stage) string {
	if s.AttemptID == 0 {
		return fmt.Sprintf("stage %d", s.StageID)
	}
	return fmt.Sprintf("stage %d (attempt %d)", s.StageID, s.AttemptID)
}

// addOnce appends v to s unless s holds it.
func addOnce[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
