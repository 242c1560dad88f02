package reportv1

import (
	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/s3a"
)

// Commit is one output write joined to the summary its committer left in
// the output's _SUCCESS (analyze.CommittedWrite): the object-store
// requests of the job by kind, their time against the write's task and
// commit time (share), and the committer's own stages and FileSystem
// calls (operations). Present only when `analyze --output-summaries` read
// summaries.
type Commit struct {
	SQLExecutionID int64  `json:"sqlExecutionId"`
	Path           string `json:"path"`
	Format         string `json:"format"`
	StageIDs       []int  `json:"stageIds"`
	WallMs         int64  `json:"wallMs"`
	TaskTimeMs     int64  `json:"taskTimeMs"`
	JobCommitMs    int64  `json:"jobCommitMs"`
	TaskCommitMs   int64  `json:"taskCommitMs"`
	WriteTimeMs    int64  `json:"writeTimeMs"`
	Files          int64  `json:"files"`
	Bytes          int64  `json:"bytes"`
	// Committer is the summary's: "magic", "directory", "partitioned",
	// "manifest", or "file" for the classic FileOutputCommitter's empty
	// _SUCCESS (which has no statistics: requests and operations empty).
	Committer    string          `json:"committer"`
	Summary      string          `json:"summary"` // where it was read
	SummaryTime  int64           `json:"summaryTime"`
	Host         string          `json:"host"`
	StoreBytes   int64           `json:"storeBytes"`
	RequestCount int64           `json:"requestCount"`
	RequestMs    int64           `json:"requestMs"`
	Share        float64         `json:"share"`
	Requests     []s3a.Operation `json:"requests"`
	Operations   []s3a.Operation `json:"operations"`
	// ProcessRequests are the committing process's S3A request counters
	// (the summary's metrics): cumulative since that process started, so
	// they include whatever it wrote before; in local mode the tasks'.
	ProcessRequests map[string]int64 `json:"processRequests"`
}

// commits converts the joined writes; nil without any.
func commits(cs []analyze.CommittedWrite) []Commit {
	var out []Commit
	for _, c := range cs {
		w, s := c.Write, c.Summary
		x := Commit{SQLExecutionID: w.SQLExecutionID, Path: w.Path, Format: w.Format, StageIDs: w.StageIDs,
			WallMs: w.WallMs, TaskTimeMs: w.TaskTimeMs, JobCommitMs: w.JobCommitMs, TaskCommitMs: w.TaskCommitMs, WriteTimeMs: c.WriteTimeMs,
			Files: w.Files, Bytes: w.Bytes, Committer: s.Committer, Summary: s.Source, SummaryTime: s.Timestamp,
			Host: s.Hostname, StoreBytes: s.Bytes(), RequestCount: c.RequestCount, RequestMs: c.RequestMs,
			Share: float64(int64(c.Share*1000+0.5)) / 1000, Requests: c.Requests, Operations: []s3a.Operation{}}
		if x.StageIDs == nil {
			x.StageIDs = []int{}
		}
		if x.Requests == nil {
			x.Requests = []s3a.Operation{}
		}
		x.ProcessRequests = processRequests(s)
		for _, op := range s.Operations() {
			if op.Kind != s3a.KindRequest && op.Timed {
				x.Operations = append(x.Operations, op)
			}
		}
		out = append(out, x)
	}
	return out
}

// AddCommits puts the joined writes into the report.
func (r *Report) AddCommits(cs []analyze.CommittedWrite) { r.Commits = commits(cs) }

// processRequests picks the request counters out of a summary's metrics.
func processRequests(s *s3a.Summary) map[string]int64 {
	out := map[string]int64{}
	for k, v := range s.Metrics {
		if v > 0 && s3a.IsRequestCounter(k) {
			out[k] = v
		}
	}
	return out
}
