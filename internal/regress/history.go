package regress

// Run is one run of a recurring job as serve keeps it, judged against
// the runs before it: the figures the job's API and its page both show.
type Run struct {
	Sample
	Log      string    `json:"log"`
	Baseline *Baseline `json:"baseline,omitempty"` // nil: too few runs before it
	Verdict  *Verdict  `json:"verdict,omitempty"`
	Causes   []Cause   `json:"causes,omitempty"` // on the job's page, for a regressed run
	// Unexplained marks a regressed run whose causes the answer did not
	// compute: older than the newest Job.ExplainLimit regressed runs.
	Unexplained bool `json:"unexplained,omitempty"`
}

// Job is a recurring job and its runs, oldest first.
type Job struct {
	Key    string `json:"key"`
	Runs   []Run  `json:"runs"`
	Latest Run    `json:"latest"`
	// Priced tells whether the runs' costs carry money (serve was given
	// prices); without, they are core-hours and GB-hours only.
	Priced bool `json:"priced"`
	// ExplainLimit is how many regressed runs, the newest first, the
	// answer explains; zero where none are (the job list).
	ExplainLimit int `json:"explainLimit,omitempty"`
}

// History judges each of a job's runs (oldest first) against the runs
// before it: the baseline as it stood when the run came. A run judged
// regressed is left out of later baselines: it is an incident, not the
// job's usual time, and counted in them it would widen their spread until
// the next change hides in it (a series of 3× input, then 200 shuffle
// partitions, then half the executors: the third went unflagged). When
// the last cfg.MinRuns runs all regressed, the job's level moved and they
// count again.
func History(key string, samples []Sample, logs []string, cfg Config) Job {
	j := Job{Key: key}
	regressed := make([]bool, len(samples))
	for i, s := range samples {
		run := Run{Sample: s, Log: logs[i]}
		if b, ok := BaselineOf(usual(samples[:i], regressed[:i], cfg.MinRuns), cfg); ok {
			v := Judge(b, s, cfg)
			run.Baseline, run.Verdict = &b, &v
			regressed[i] = v.Regressed
		}
		j.Runs = append(j.Runs, run)
		j.Priced = j.Priced || s.Cost.Money != nil
	}
	if len(j.Runs) > 0 {
		j.Latest = j.Runs[len(j.Runs)-1]
	}
	return j
}

// usual is the runs a baseline is built from: those before that did not
// regress, or all of them after a streak of at least streak regressions.
func usual(before []Sample, regressed []bool, streak int) []Sample {
	n := 0
	for i := len(regressed) - 1; i >= 0 && regressed[i]; i-- {
		n++
	}
	if n == 0 || n >= streak {
		return before
	}
	out := make([]Sample, 0, len(before))
	for i, s := range before {
		if !regressed[i] {
			out = append(out, s)
		}
	}
	return out
}
