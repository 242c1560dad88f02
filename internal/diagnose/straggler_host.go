package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/units"
)

var hostSlowdown = Threshold{Metric: "host median task time ÷ median of per-host medians", Warning: 3.16, Critical: 10,
	Gate: "≥ 3 hosts, ≥ 3 tasks on the host; suppressed when the bytes ratio is within 1.5× of the time ratio; cost: the host's task time beyond " +
		"the other hosts' median per task (core time; wall: one task's excess or the core time ÷ the stage's cores, whichever is " +
		"more, at most the stage) ≥ 5 % of the app and ≥ 1 s, " +
		"else info; ≥ 25 % for critical",
	Source: "Dr. Elephant master ExecutorsHeuristic (severe 10^0.5, critical 10); 1.5× ours; the cost gate replaces its " +
		"5 min of host task time, which no short application reaches"}

var stragglerTask = Threshold{Metric: "longest warm task duration ÷ median, on equal input", Warning: 4, Critical: 10,
	Gate: "the longest task read < 5× the median task's bytes and records (else data-skew); the first tasks on a " +
		"fresh executor do not count; the stage waited for it (as data-skew) or for another task ≥ 4× the median, " +
		"which finished last; not when the slow tasks are only executors' first wave of the stage (launched before " +
		"any of the stage's tasks on the executor finished: one per core), on ≥ half its " +
		"executors (its code compiled on each JVM); no host finding for the stage; " +
		"cost: the wall time beyond the median task ≥ 5 % of the app and ≥ 1 s, else info; ≥ 25 % for critical",
	Source: "the data-skew duration thresholds (Dr. Elephant 4, DataFlint 10), on tasks whose input rules out skew"}

// StragglerHost reports hosts, executors and tasks that run a stage's
// tasks slower than the others on as much data.
var StragglerHost = &Rule{
	ID:     "straggler-host",
	Title:  "Straggler host",
	Recipe: "troubleshoot/data-skew-diagnosis.md#straggler-host",
	Doc: "One host runs a stage's tasks much slower than the other hosts although its tasks do not read " +
		"proportionally more bytes, or a few tasks run far longer than the median on as much data as the " +
		"others: a bad disk, a noisy neighbour, a throttled node, GC, a slow remote read. Names the hosts and " +
		"executors, the GC share of those tasks and their locality.",
	Thresholds: []Threshold{hostSlowdown, stragglerTask},
	Run:        runStragglerHost,
}

func runStragglerHost(p *Pass) []Finding {
	var out []Finding
	for i := range p.Result.Stages {
		s := &p.Result.Stages[i]
		fs := hostFindings(p, s)
		if len(fs) == 0 {
			if f, ok := stragglerTasks(p, s); ok {
				fs = append(fs, f)
			}
		}
		out = append(out, fs...)
	}
	return out
}

// hostFindings are the hosts of one stage whose tasks ran slower than the
// other hosts' for no more bytes.
func hostFindings(p *Pass, s *analyze.Stage) []Finding {
	if len(s.Hosts) < 3 {
		return nil
	}
	meds := make([]int64, 0, len(s.Hosts))
	bmeds := make([]int64, 0, len(s.Hosts))
	for _, h := range s.Hosts {
		meds = append(meds, h.MedianTaskMs)
		bmeds = append(bmeds, h.MedianBytes)
	}
	slices.Sort(meds)
	slices.Sort(bmeds)
	med, bmed := meds[len(meds)/2], bmeds[len(bmeds)/2]
	var out []Finding
	for _, h := range s.Hosts {
		if f, ok := hostFinding(p, s, h, med, bmed); ok {
			out = append(out, f)
		}
	}
	return out
}

// hostFinding judges one host of a stage against the median of the hosts'
// median task (med) and bytes (bmed).
func hostFinding(p *Pass, s *analyze.Stage, h analyze.HostStat, med, bmed int64) (Finding, bool) {
	if h.Tasks < 3 {
		return Finding{}, false // one or two slow tasks are the task arm's, or the data's
	}
	ratio := analyze.Ratio(h.MedianTaskMs, med)
	sev := hostSlowdown.Level(ratio)
	if sev == None {
		return Finding{}, false
	}
	bratio := analyze.Ratio(h.MedianBytes, bmed)
	if bmed > 0 && bratio*1.5 >= ratio {
		return Finding{}, false // the host read more: skew, not the host
	}
	execs := executorsOnHost(p, s, h.Host)
	cores := 0
	for _, id := range execs {
		if e := p.Attempt.Executor(id); e != nil {
			cores += e.TotalCores
		}
	}
	// At the other hosts' pace its tasks would have taken med each: the
	// rest is the host's core time. In wall time the stage lost at least
	// one slow task's excess (tasks in one wave wait for it) and, when the
	// cores share the work as they free up, that core time spread over all
	// of them; at most the stage.
	excess := h.TaskTimeMs - int64(h.Tasks)*med
	wall := max(h.MedianTaskMs-med, excess/int64(max(s.CoresAvailable, 1)))
	cost := p.cost(min(wall, s.DurationMs), excess,
		"core: the host's task time beyond the other hosts' median per task; wall: one task's excess or that core time ÷ the stage's cores, whichever is more, at most the stage")
	mix := tasksOn(p, s, func(t *model.Task) bool { return t.Host == h.Host })
	return Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost, ExecutorIDs: execs,
		Detail: fmt.Sprintf("In %s, tasks on %s took a median %s against %s on the other hosts (%.1f×) %s; %s.",
			stageRef(s), h.Host, fmtMs(h.MedianTaskMs), fmtMs(med), ratio, bytesAgainst(h.MedianBytes, bmed), mix.text()),
		Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "host": h.Host,
			"hostMedianMs": h.MedianTaskMs, "otherHostsMedianMs": med, "ratio": round(ratio),
			"bytesRatio": round(bratio), "hostTaskTimeMs": h.TaskTimeMs, "hostTasks": h.Tasks, "hostCores": cores,
			"hosts": len(s.Hosts), "gcShare": round(mix.gcShare()), "locality": mix.localities}}, true
}

// stragglerTasks reports the tasks of a stage that ran far longer than its
// median on as much data: not skew (data-skew judges more data), not a
// fresh executor's warm-up.
func stragglerTasks(p *Pass, s *analyze.Stage) (Finding, bool) {
	l, med := s.Longest, s.TaskDurationMs.P50
	if s.Succeeded < 2 || med <= 0 || skewInput.Level(l.InputRatio) != None {
		return Finding{}, false
	}
	ratio := analyze.Ratio(l.DurationMs, med)
	sev := stragglerTask.Level(ratio)
	if sev == None {
		return Finding{}, false
	}
	floor := int64(stragglerTask.Warning * float64(med))
	ids := map[int64]bool{}
	var core int64
	byHost := map[string]int64{}
	waited := s.MaxTaskOverStage >= 0.75 || s.LongestTaskEndsStage
	firsts, firstExecs := true, map[string]bool{}
	for _, t := range s.Slow {
		if t.DurationMs >= floor {
			ids[t.TaskID] = true
			core += t.DurationMs - med
			byHost[t.Host] += t.DurationMs - med
			waited = waited || t.EndsStage // a straggler after the longest set the stage's end
			firsts = firsts && t.FirstOnExecutor
			firstExecs[t.ExecutorID] = true
		}
	}
	// Only the executors' first waves of the stage were slow, on at least
	// half of its executors: the stage's warm-up on each JVM (its
	// generated code compiled, its task binary fetched), not a slow node.
	if !waited || firsts && 2*len(firstExecs) >= len(tasksOn(p, s, func(*model.Task) bool { return true }).executors) {
		return Finding{}, false
	}
	mix := tasksOn(p, s, func(t *model.Task) bool { return ids[t.TaskID] })
	cost := p.cost(l.DurationMs-med, core, "wall: the longest task beyond the median task, which the stage waited for; core: the stragglers' time beyond the median")
	// The host two thirds of the stragglers' excess time was spent on, if
	// one was: a slow node rather than slow tasks everywhere.
	host, share := "", 0.0
	for h, ms := range byHost {
		if f := analyze.Ratio(ms, core); f >= 2.0/3 {
			host, share = h, f
		}
	}
	where := ""
	if host != "" && len(mix.hosts) > 1 {
		where = fmt.Sprintf(" (%.0f%% of their time beyond the median on %s)", 100*share, host)
	}
	input := "on as much data as the median task (" + readText(l.Bytes, l.Records) + ")"
	why := "A slow node, executor or read, not the data."
	if l.InputRatio == 0 {
		input = "with no input the log counts for the stage's tasks"
		why = "The log counts no input for these tasks (an RDD from the driver, a generator), so it cannot rule out " +
			"skew in what they computed; their hosts and GC say whether the node was slow."
	}
	return Finding{Severity: gate(sev, cost), Title: "Straggler tasks", StageIDs: []int{s.StageID}, Cost: cost,
		ExecutorIDs: mix.executors,
		Detail: fmt.Sprintf("In %s, %d task(s) ran ≥ %.0f× the median %s — the longest %s (%.1f×) %s — on host(s) %s%s, "+
			"executor(s) %s; %s. %s",
			stageRef(s), len(ids), stragglerTask.Warning, fmtMs(med), fmtMs(l.DurationMs), ratio, input,
			strings.Join(mix.hosts, ", "), where, strings.Join(mix.executors, ", "), mix.text(), why),
		Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "host": host, "hosts": mix.hosts,
			"stragglers": len(ids), "maxTaskMs": l.DurationMs, "medianTaskMs": med, "ratio": round(ratio),
			"inputMaxOverMedian": round(l.InputRatio), "gcShare": round(mix.gcShare()), "locality": mix.localities,
			"freshExecutorTasksLeftOut": l.ColdSkipped}}, true
}

// taskMix is what a set of a stage's tasks have in common: where they
// ran, how much of their run time was GC, their locality levels.
type taskMix struct {
	hosts, executors, localities []string
	gcMs, runMs                  int64
}

// tasksOn gathers the successful tasks of a stage that keep says.
func tasksOn(p *Pass, s *analyze.Stage, keep func(t *model.Task) bool) taskMix {
	var m taskMix
	st := p.Attempt.Stage(s.StageID, s.AttemptID)
	if st == nil {
		return m
	}
	for _, t := range st.Tasks {
		if !t.Successful() || !keep(t) {
			continue
		}
		m.hosts = addOnce(m.hosts, t.Host)
		m.executors = addOnce(m.executors, t.ExecutorID)
		if t.Locality != "" {
			m.localities = addOnce(m.localities, t.Locality)
		}
		tm := t.Metrics()
		m.gcMs += min(tm.JvmGcTime, tm.ExecutorRunTime)
		m.runMs += tm.ExecutorRunTime
	}
	slices.Sort(m.hosts)
	slices.Sort(m.executors)
	slices.Sort(m.localities)
	return m
}

func (m taskMix) gcShare() float64 { return analyze.Ratio(m.gcMs, m.runMs) }

// text says the GC share and locality of the tasks.
func (m taskMix) text() string {
	s := fmt.Sprintf("GC took %.0f%% of their run time", 100*m.gcShare())
	if len(m.localities) > 0 {
		s += ", locality " + strings.Join(m.localities, ", ")
	}
	return s
}

// executorsOnHost lists the executors that ran a stage's tasks on host.
func executorsOnHost(p *Pass, s *analyze.Stage, host string) []string {
	st := p.Attempt.Stage(s.StageID, s.AttemptID)
	if st == nil {
		return nil
	}
	var ids []string
	for _, t := range st.Tasks {
		if t.Host == host && !slices.Contains(ids, t.ExecutorID) {
			ids = append(ids, t.ExecutorID)
		}
	}
	return ids
}

// bytesAgainst says a host's median task bytes against the other hosts':
// "for 1.1× the bytes", or that no bytes were counted.
func bytesAgainst(host, others int64) string {
	if others <= 0 && host <= 0 {
		return "with no input bytes counted on any host"
	}
	if others <= 0 {
		return fmt.Sprintf("reading %s where the other hosts' median task read nothing", units.Bytes(host))
	}
	return fmt.Sprintf("for %.1f× the bytes", float64(host)/float64(others))
}
