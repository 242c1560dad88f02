package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var shuffleTimeShare = Threshold{Metric: "Fetch Wait Time ÷ run time; Shuffle Write Time ÷ run time", Warning: 0.20, Critical: 0.40,
	Gate: "cost: the wait or write time (core) and its share of the stage's wall time ≥ 5 % of the app and " +
		"≥ 1 s of wall (or ≥ 1 min of core) time, else no finding; ≥ 25 % for critical",
	Source: "ours (Sparklens defines ReadFetch% and ShuffleWrite% without thresholds); the cost gate replaces a 2-min stage floor"}

var liveFetchFailures = Threshold{Metric: "FetchFailed task attempts, not after an executor loss", Warning: 1, Critical: 1,
	Gate:   "warning for any; critical when it failed a job, or the re-runs it caused cost ≥ 25 % of the app",
	Source: "ours: a fetch failure from a live executor is a fault (lost shuffle files, a failing disk or shuffle service)"}

// ShuffleBottleneck reports stages waiting on shuffle fetches or writes, and shuffle fetch failures.
var ShuffleBottleneck = &Rule{
	ID:     "shuffle-bottleneck",
	Title:  "Shuffle bottleneck",
	Recipe: "troubleshoot/shuffle-bottleneck.md",
	Doc: "Tasks wait on shuffle fetches or spend their time writing shuffle files, or shuffle fetches fail on " +
		"executors that were not lost (fetch failures after an executor loss are executor-lost's).",
	Thresholds: []Threshold{shuffleTimeShare, liveFetchFailures},
	Run:        runShuffleBottleneck,
}

func runShuffleBottleneck(p *Pass) []Finding {
	out := fetchFailureFindings(p)
	r := p.Result
	for i := range r.Stages {
		s := &r.Stages[i]
		fetch := analyze.Ratio(s.FetchWaitMs, s.RunTimeTotalMs)
		write := analyze.Ratio(s.ShuffleWriteTimeNs/1e6, s.RunTimeTotalMs)
		ratio := max(fetch, write)
		sev := shuffleTimeShare.Level(ratio)
		if sev == None {
			continue
		}
		core := s.FetchWaitMs + s.ShuffleWriteTimeNs/1e6
		// In wall time, the stage lost that share of its duration — never
		// more than the time itself.
		wall := min(int64(ratio*float64(max(s.DurationMs, 0))), core)
		cost := p.cost(wall, core, "core: the stage's fetch wait and shuffle write time; wall: that share of its duration")
		if !cost.Matters() {
			continue
		}
		out = append(out, Finding{Severity: gate(sev, cost), StageIDs: []int{s.StageID}, Cost: cost,
			Detail: fmt.Sprintf("%s waited %s on shuffle fetches (%.0f%% of run time) and wrote shuffle for %s (%.0f%%).",
				stageRef(s), fmtMs(s.FetchWaitMs), 100*fetch, fmtMs(s.ShuffleWriteTimeNs/1e6), 100*write) +
				photonNote(p, "shuffle metrics"),
			Evidence: map[string]any{"stageId": s.StageID, "attemptId": s.AttemptID, "fetchWaitMs": s.FetchWaitMs,
				"shuffleWriteTimeMs": s.ShuffleWriteTimeNs / 1e6, "runTimeMs": s.RunTimeTotalMs,
				"fetchWaitRatio": round(fetch), "shuffleWriteRatio": round(write),
				"shuffleReadBytes": s.ShuffleReadBytes, "shuffleWriteBytes": s.ShuffleWriteBytes}})
	}
	return out
}

// fetchFailureFindings reports, per stage, the shuffle fetches that failed
// from executors that were still alive, with the re-runs they caused.
func fetchFailureFindings(p *Pass) []Finding {
	r := p.Result
	byStage := map[int][]*analyze.FailureCause{}
	var stageIDs []int
	for i := range r.Failures.Causes {
		c := &r.Failures.Causes[i]
		if c.Reason != "FetchFailed" || c.LostExecutor != "" {
			continue // a lost executor's fetch failures are executor-lost's
		}
		for _, id := range c.StageIDs {
			if byStage[id] == nil {
				stageIDs = append(stageIDs, id)
			}
			byStage[id] = append(byStage[id], c)
		}
	}
	slices.Sort(stageIDs)
	var out []Finding
	for _, id := range stageIDs {
		out = append(out, fetchFailureFinding(p, id, byStage[id]))
	}
	return out
}

func fetchFailureFinding(p *Pass, stageID int, causes []*analyze.FailureCause) Finding {
	r := p.Result
	var failures, attempts int
	var jobs, failedJobs []int
	var first, last *analyze.Stage
	var wallMs, coreMs int64
	for i := range r.Stages {
		s := &r.Stages[i]
		if s.StageID != stageID {
			continue
		}
		attempts++
		failures += s.FetchFailures
		for _, j := range s.JobIDs {
			jobs = addOnce(jobs, j)
		}
		if first == nil || s.AttemptID < first.AttemptID {
			first = s
		}
		if last == nil || s.AttemptID > last.AttemptID {
			last = s
		}
	}
	// What the failures cost: the stage's attempts that fetch failures
	// ended (every one but the last, and the last too when it failed), and
	// the re-runs of other stages of its jobs (the map stages that had to
	// write the lost output again).
	reruns := []string{}
	for i := range r.Stages {
		s := &r.Stages[i]
		switch {
		case s.StageID == stageID && (s != last || s.Status == "FAILED"):
			wallMs += s.DurationMs
			coreMs += s.TaskTimeMs + s.KilledTaskMs
		case s.StageID == stageID:
			coreMs += s.FailedTaskMs // failed attempts in the attempt that went through
		case s.AttemptID > 0 && first != nil && s.SubmissionTime >= first.SubmissionTime &&
			slices.ContainsFunc(s.JobIDs, func(j int) bool { return slices.Contains(jobs, j) }):
			wallMs += s.DurationMs
			coreMs += s.TaskTimeMs
			reruns = append(reruns, fmt.Sprintf("%d.%d", s.StageID, s.AttemptID))
		}
	}
	cost := p.cost(wallMs, coreMs, "the stage attempts fetch failures ended and the map-stage re-runs they caused")
	var from, hosts []string
	fatal := false
	for _, c := range causes {
		for _, e := range c.FetchFrom {
			from = addOnce(from, e)
		}
		for _, h := range c.Hosts {
			hosts = addOnce(hosts, h)
		}
		for _, j := range c.FailedJobs {
			failedJobs = addOnce(failedJobs, j)
		}
		fatal = fatal || c.Fatal()
	}
	slices.Sort(from)
	slices.Sort(failedJobs)
	e := causes[0].Error
	sev := Warning
	if fatal || cost.Share() >= criticalCostShare {
		sev = Critical
	}
	why := errorText(e)
	if e.Class == "FetchFailed" {
		why = cmpOr(e.Message, "no cause recorded")
	}
	what := fmt.Sprintf("Spark ran it %s", times(attempts))
	if len(reruns) > 0 {
		what += fmt.Sprintf(" and re-ran the map %s %s to write the lost output again", pluralWord("stage attempt", len(reruns)),
			strings.Join(reruns, ", "))
	}
	if fatal {
		what += fmt.Sprintf("; the fetch failures aborted it and failed %s", plural("job", failedJobs))
	}
	detail := fmt.Sprintf("Stage %d failed %s to fetch shuffle output from executor(s) %s, which were not lost: %s. "+
		"%s. The shuffle files were missing or unreadable on a live executor (a local-disk cleaner, a full or failing "+
		"disk, an external shuffle service down).", stageID, times(failures), strings.Join(from, ", "), why, what)
	return Finding{Severity: sev, Title: "Shuffle fetch failed", StageIDs: []int{stageID}, ExecutorIDs: from, Cost: cost,
		Detail: detail,
		Evidence: map[string]any{"stageId": stageID, "fetchFailures": failures, "stageAttempts": attempts,
			"reattempted": attempts > 1, "fetchFrom": from, "hosts": hosts, "exception": e.Class, "message": e.Message,
			"mapStageReruns": reruns, "failedJobs": nonNil(failedJobs),
			"fetchFailuresFromLostExecutors": lostFetchFailures(r, stageID)}}
}

// lostFetchFailures counts a stage's fetch failures from lost executors.
func lostFetchFailures(r *analyze.Result, stageID int) int {
	n := 0
	for _, c := range r.Failures.Causes {
		if c.Reason == "FetchFailed" && c.LostExecutor != "" && slices.Contains(c.StageIDs, stageID) {
			n += c.Attempts
		}
	}
	return n
}

func pluralWord(noun string, n int) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
