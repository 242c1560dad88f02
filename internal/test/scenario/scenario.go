// Package scenario owns the real-Spark scenario library under
// testdata/scenarios: small workloads that each produce one behaviour a
// Spark user meets, the event logs real Spark wrote for them (one per Spark
// line, committed), and what sparkdx must report about each. Tests load the
// committed logs (no Spark needed) or regenerate them on a real cluster.
package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
)

// Scenario is one directory of the library: workload.py, scenario.json and
// spark-<version>/<event log> per Spark line.
type Scenario struct {
	Name string `json:"-"`
	Dir  string `json:"-"`

	Description string            `json:"description"`
	Cluster     Cluster           `json:"cluster"`
	Conf        map[string]string `json:"conf"`
	// Args are the workload's arguments; "{marks}" stands for a directory
	// the workload's tasks mark their start in, "{out}" for an output
	// directory.
	Args []string `json:"args"`
	// LateWorkerSeconds, when > 0, starts one Worker that long after the
	// submission (the cluster starts with Cluster.Workers, usually 0).
	LateWorkerSeconds int `json:"lateWorkerSeconds"`
	// KillExecutorAtMarks, when > 0, kills one executor JVM with SIGKILL
	// once that many tasks have marked their start in {marks}.
	KillExecutorAtMarks int `json:"killExecutorAtMarks"`
	// Throttle, when set, slows one executor JVM down mid-run: a node
	// that is slow for reasons outside the data (a noisy neighbour, a
	// throttled CPU).
	Throttle *Throttle `json:"throttle,omitempty"`
	// DriverKilled says the workload kills its own driver JVM: spark-submit
	// then exits with the signal's status, which is the scenario.
	DriverKilled bool `json:"driverKilled"`
	// Agent samples the node with the sparkdx agent while the workload
	// runs; the driver JVM's samples are kept beside the log
	// (AgentFile) for the rules that read them.
	Agent  bool   `json:"agent"`
	Expect Expect `json:"expect"`
}

// Throttle stops the executor JVM on Host with SIGSTOP for StopMs and lets
// it run for RunMs, over and over, from when the workload has put AtMarks
// marks in the directory its SparkConf names (ThrottleMarksConf) until it
// ends.
type Throttle struct {
	Host    string `json:"host"`
	AtMarks int    `json:"atMarks"`
	StopMs  int    `json:"stopMs"`
	RunMs   int    `json:"runMs"`
}

// Cluster is the standalone cluster a scenario runs on.
type Cluster struct {
	Workers         int    `json:"workers"`
	CoresPerWorker  int    `json:"coresPerWorker"`
	MemoryPerWorker string `json:"memoryPerWorker"`
}

// Expect is what sparkdx must report about a scenario's log.
type Expect struct {
	// Facts prove the behaviour happened (see Fact).
	Facts []Fact `json:"facts"`
	// Fires lists findings that must be there.
	Fires []Fire `json:"fires"`
	// QuietAbove, when set, is the highest severity a finding of a rule not
	// named in Fires may have ("info" on baselines: no warning at all).
	QuietAbove string `json:"quietAbove"`
	// Absent lists rules that must report nothing at all, not even info
	// (a baseline that shows what a rule must not mistake for its problem).
	Absent []string `json:"absent,omitempty"`
	// MaxFindings, when > 0, is the most findings the report may hold,
	// every severity counted: per-stage findings of one rule and cause
	// fold into one (issue 30: ten findings, not a hundred).
	MaxFindings int `json:"maxFindings"`
}

// Fire is one finding that must be reported.
type Fire struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"` // the least severity accepted
	// Stage, when set, must be a substring of the name of one of the
	// finding's stages (names carry the call site; ids differ by line).
	Stage string `json:"stage,omitempty"`
	// Executor, when true, requires the finding to name an executor.
	Executor bool `json:"executor,omitempty"`
	// Evidence, when set, requires these evidence values, compared as
	// printed (fmt %v): "exception": "ValueError", "userLine": "11".
	Evidence map[string]string `json:"evidence,omitempty"`
	// Count, when > 0, is how many findings of the rule there must be:
	// the one expected and no other (a query that keeps up must not fire
	// beside one that falls behind).
	Count int `json:"count,omitempty"`
	// Pending says why today's sparkdx misses this finding. A pending
	// expectation that is met fails the check, so it cannot go stale.
	Pending string `json:"pending,omitempty"`
}

// Load reads the scenario in dir.
func Load(dir string) (*Scenario, error) {
	b, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	s := &Scenario{Name: filepath.Base(dir), Dir: dir}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("scenario: %s: %w", filepath.Join(dir, "scenario.json"), err)
	}
	if _, err := os.Stat(s.Workload()); err != nil {
		return nil, fmt.Errorf("scenario: %s: %w", s.Name, err)
	}
	for _, f := range s.Expect.Fires {
		if _, err := diagnose.ParseSeverity(f.Severity); err != nil {
			return nil, fmt.Errorf("scenario: %s: rule %s: %w", s.Name, f.Rule, err)
		}
		if !knownRule(f.Rule) {
			return nil, fmt.Errorf("scenario: %s: unknown rule %q", s.Name, f.Rule)
		}
	}
	for _, f := range s.Expect.Facts {
		if !knownMetric(f.Metric) {
			return nil, fmt.Errorf("scenario: %s: unknown fact metric %q", s.Name, f.Metric)
		}
	}
	for _, r := range s.Expect.Absent {
		if !knownRule(r) {
			return nil, fmt.Errorf("scenario: %s: unknown absent rule %q", s.Name, r)
		}
	}
	if s.Expect.QuietAbove != "" {
		if _, err := diagnose.ParseSeverity(s.Expect.QuietAbove); err != nil {
			return nil, fmt.Errorf("scenario: %s: quietAbove: %w", s.Name, err)
		}
	}
	return s, nil
}

func knownRule(id string) bool {
	for _, r := range diagnose.All {
		if r.ID == id {
			return true
		}
	}
	return false
}

// All loads every scenario under root (testdata/scenarios), by name.
func All(root string) ([]*Scenario, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	var out []*Scenario
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s, err := Load(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Workload is the path of the scenario's PySpark program.
func (s *Scenario) Workload() string { return filepath.Join(s.Dir, "workload.py") }

// LogDir is where the event log of Spark version lives.
func (s *Scenario) LogDir(version string) string {
	return filepath.Join(s.Dir, "spark-"+version)
}

// Logs returns the committed event logs, keyed by Spark version.
func (s *Scenario) Logs() map[string]string {
	out := map[string]string{}
	dirs, _ := filepath.Glob(filepath.Join(s.Dir, "spark-*"))
	for _, d := range dirs {
		files, _ := os.ReadDir(d)
		for _, f := range files {
			if !f.IsDir() {
				out[strings.TrimPrefix(filepath.Base(d), "spark-")] = filepath.Join(d, f.Name())
			}
		}
	}
	return out
}

// AgentFile is where the driver samples the agent took during a run are
// kept, beside the event log at logPath: agent/driver.json, diagnose's
// AgentData as JSON.
func AgentFile(logPath string) string {
	return filepath.Join(filepath.Dir(logPath), "agent", "driver.json")
}

// Diagnosis is what sparkdx reports about one log.
type Diagnosis struct {
	Attempt  *model.Attempt
	Result   *analyze.Result
	Findings []diagnose.Finding
}

// Diagnose reads the log at path and runs every rule on it, as
// `sparkdx analyze` does, with the agent's driver samples when the run
// kept them (AgentFile), as serve does.
func Diagnose(ctx context.Context, path string) (*Diagnosis, error) {
	var agent *diagnose.AgentData
	if b, err := os.ReadFile(AgentFile(path)); err == nil {
		agent = &diagnose.AgentData{}
		if err := json.Unmarshal(b, agent); err != nil {
			return nil, fmt.Errorf("scenario: %s: %w", AgentFile(path), err)
		}
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	logs, err := eventlog.Open(ctx, path, eventlog.OpenOptions{})
	if err != nil {
		return nil, err
	}
	if len(logs) != 1 {
		return nil, fmt.Errorf("scenario: %s holds %d logs, want 1", path, len(logs))
	}
	l := logs[0]
	a, src, _, err := pipeline.Replay(ctx, l, replay.Options{Strict: true})
	if err != nil {
		return nil, err
	}
	d := pipeline.Diagnose(a, nil, src, agent)
	return &Diagnosis{Attempt: a, Result: d.Result, Findings: d.Findings}, nil
}

// Outcome is the check of one expectation.
type Outcome struct {
	What    string // the expectation, in words
	Met     bool
	Pending string // non-empty for a pending expectation
	Detail  string // the findings that were looked at, when not met
}

// Failed reports whether the outcome fails the check: a required
// expectation not met, or a pending one that is met (remove "pending").
func (o Outcome) Failed() bool {
	if o.Pending != "" {
		return o.Met
	}
	return !o.Met
}

// Check compares a diagnosis with the scenario's expectations.
func (s *Scenario) Check(d *Diagnosis) []Outcome {
	var out []Outcome
	for _, f := range s.Expect.Facts {
		out = append(out, d.holds(f))
	}
	for _, f := range s.Expect.Fires {
		out = append(out, d.fires(f))
	}
	if s.Expect.QuietAbove != "" {
		out = append(out, d.quiet(s.Expect))
	}
	for _, r := range s.Expect.Absent {
		out = append(out, d.absent(r))
	}
	if s.Expect.MaxFindings > 0 {
		out = append(out, d.atMost(s.Expect.MaxFindings))
	}
	return out
}

func (d *Diagnosis) absent(rule string) Outcome {
	o := Outcome{What: "no " + rule + " finding", Met: true}
	for _, fd := range d.Findings {
		if fd.Rule == rule {
			o.Met = false
			o.Detail += fmt.Sprintf("%s %s stages %v: %s; ", fd.Rule, fd.Severity, fd.StageIDs, fd.Detail)
		}
	}
	return o
}

// atMost checks that the report holds at most n findings.
func (d *Diagnosis) atMost(n int) Outcome {
	o := Outcome{What: fmt.Sprintf("at most %d findings", n), Met: len(d.Findings) <= n}
	if !o.Met {
		o.Detail = d.summary(nil)
	}
	return o
}

func (d *Diagnosis) fires(f Fire) Outcome {
	least, _ := diagnose.ParseSeverity(f.Severity)
	what := fmt.Sprintf("%s at least %s", f.Rule, f.Severity)
	if f.Stage != "" {
		what += fmt.Sprintf(" on a stage named %q", f.Stage)
	}
	if f.Executor {
		what += " naming an executor"
	}
	keys := slices.Sorted(maps.Keys(f.Evidence))
	for _, k := range keys {
		what += fmt.Sprintf(" with %s=%s", k, f.Evidence[k])
	}
	if f.Count > 0 {
		what += fmt.Sprintf(", %d finding(s) of the rule in all", f.Count)
	}
	o := Outcome{What: what, Pending: f.Pending}
	var seen []string
	for _, fd := range withCauses(d.Findings) {
		if fd.Rule != f.Rule {
			continue
		}
		seen = append(seen, fmt.Sprintf("%s %s stages %v executors %v: %s", fd.Rule, fd.Severity, fd.StageIDs, fd.ExecutorIDs, fd.Title))
		if fd.Severity < least || (f.Executor && len(fd.ExecutorIDs) == 0) {
			continue
		}
		if f.Stage != "" && !slices.ContainsFunc(fd.StageIDs, func(id int) bool { return strings.Contains(d.stageName(id), f.Stage) }) {
			continue
		}
		if slices.ContainsFunc(keys, func(k string) bool { return fmt.Sprint(fd.Evidence[k]) != f.Evidence[k] }) {
			seen[len(seen)-1] += fmt.Sprintf(" (evidence %v)", fd.Evidence)
			continue
		}
		o.Met = true
	}
	if f.Count > 0 && len(seen) != f.Count {
		o.Met = false
	}
	if !o.Met {
		o.Detail = d.summary(seen)
	}
	return o
}

// withCauses is fs and, after each finding that folded others in as its
// causes (a slow write says why under evidence "causes"), each cause as a
// finding of its own rule: a rule "fires" when the diagnosis names it,
// standing alone or as the cause of another finding.
func withCauses(fs []diagnose.Finding) []diagnose.Finding {
	var out []diagnose.Finding
	for _, f := range fs {
		out = append(out, f)
		causes, _ := f.Evidence["causes"].([]map[string]any)
		for _, c := range causes {
			rule, _ := c["rule"].(string)
			sev, _ := c["severity"].(diagnose.Severity)
			stages, _ := c["stageIds"].([]int)
			ev, _ := c["evidence"].(map[string]any)
			out = append(out, diagnose.Finding{Rule: rule, Severity: sev, StageIDs: stages, ExecutorIDs: f.ExecutorIDs,
				Evidence: ev, Title: "the cause " + f.Rule + " names"})
		}
	}
	return out
}

func (d *Diagnosis) quiet(e Expect) Outcome {
	most, _ := diagnose.ParseSeverity(e.QuietAbove)
	o := Outcome{What: "no other finding above " + e.QuietAbove, Met: true}
	var loud []string
	for _, fd := range d.Findings {
		named := slices.ContainsFunc(e.Fires, func(f Fire) bool { return f.Rule == fd.Rule })
		if !named && fd.Severity > most {
			o.Met = false
			loud = append(loud, fmt.Sprintf("%s %s stages %v: %s", fd.Rule, fd.Severity, fd.StageIDs, fd.Title))
		}
	}
	if !o.Met {
		o.Detail = strings.Join(loud, "; ")
	}
	return o
}

func (d *Diagnosis) summary(seen []string) string {
	if len(seen) == 0 {
		var all []string
		for _, fd := range d.Findings {
			all = append(all, fmt.Sprintf("%s %s", fd.Rule, fd.Severity))
		}
		return "no such finding; findings: [" + strings.Join(all, ", ") + "]"
	}
	return strings.Join(seen, "; ")
}

func (d *Diagnosis) stageName(id int) string {
	for _, st := range d.Attempt.Stages {
		if st.StageID == id {
			return st.Name
		}
	}
	return ""
}
