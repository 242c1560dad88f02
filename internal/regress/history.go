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
// before it: the baseline as it stood when the run came.
func History(key string, samples []Sample, logs []string, cfg Config) Job {
	j := Job{Key: key}
	for i, s := range samples {
		run := Run{Sample: s, Log: logs[i]}
		if b, ok := BaselineOf(samples[:i], cfg); ok {
			v := Judge(b, s, cfg)
			run.Baseline, run.Verdict = &b, &v
		}
		j.Runs = append(j.Runs, run)
		j.Priced = j.Priced || s.Cost.Money != nil
	}
	if len(j.Runs) > 0 {
		j.Latest = j.Runs[len(j.Runs)-1]
	}
	return j
}
