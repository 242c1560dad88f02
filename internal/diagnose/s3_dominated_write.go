package diagnose

import (
	"fmt"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/s3a"
	"github.com/sparkdx/sparkdx/internal/units"
)

var s3StoreShare = Threshold{Metric: "commit time on S3 (Σ task commit + job commit; a committer summary's " +
	"timed requests when larger) ÷ the write's task and job-commit time", Warning: 0.30, Critical: 0.60,
	Gate: "a write to s3a://, s3:// or s3n://; cost: that share of the write's wall ≥ 5 % of the app",
	Source: "ours: on S3 every commit step is requests (renames copy and delete each object; the S3A committers " +
		"list, read and complete uploads), so commit time is S3 time; it leaves out the tasks' own uploads, " +
		"hence a bar below half"}

// S3DominatedWrite reports writes to S3 whose time went to the store's
// requests rather than to producing the data.
var S3DominatedWrite = &Rule{
	ID:     "s3-dominated-write",
	Title:  "S3 requests dominate a write",
	Recipe: "troubleshoot/s3-write-slow.md#s3-dominated-write",
	Doc: "A write to S3 that spends much of its task and commit time committing — renames (copy + delete) under the " +
		"classic FileOutputCommitter, per-file listings, uploads and completions under the S3A committers — " +
		"measured from the event log's commit times and, when `analyze --output-summaries` reads it, the " +
		"committer's _SUCCESS summary (committer, IOStatistics).",
	Thresholds: []Threshold{s3StoreShare},
	Run:        runS3DominatedWrite,
}

// minStoreMs is the least commit time judged: below it the requests of
// any write at all.
const minStoreMs = 2 * second

func runS3DominatedWrite(p *Pass) []Finding {
	if p.Attempt == nil {
		return nil
	}
	var out []Finding
	for _, w := range analyze.OutputWrites(p.Attempt, p.Result) {
		if !s3Path(w.Path) {
			continue
		}
		if f, ok := s3WriteFinding(p, w, summaryOf(p.Commits, w)); ok {
			out = append(out, f)
		}
	}
	return out
}

// summaryOf finds the write's joined summary, if one was read.
func summaryOf(cs []analyze.CommittedWrite, w analyze.OutputWrite) *analyze.CommittedWrite {
	for i := range cs {
		if cs[i].Write.SQLExecutionID == w.SQLExecutionID && cs[i].Write.Path == w.Path {
			return &cs[i]
		}
	}
	return nil
}

func s3WriteFinding(p *Pass, w analyze.OutputWrite, c *analyze.CommittedWrite) (Finding, bool) {
	jobCommit := w.JobCommitMs
	var requestMs int64
	if c != nil {
		jobCommit = max(jobCommit, committerJobMs(c.Summary))
		requestMs = c.RequestMs
	}
	storeMs := max(w.TaskCommitMs+jobCommit, requestMs)
	writeMs := w.TaskTimeMs + jobCommit
	if writeMs <= 0 || storeMs < minStoreMs {
		return Finding{}, false
	}
	share := min(float64(storeMs)/float64(writeMs), 1)
	sev := s3StoreShare.Level(share)
	if sev == None {
		return Finding{}, false
	}
	committer := committerName(p, c)
	cost := p.cost(int64(share*float64(w.WallMs)), min(w.TaskCommitMs, w.TaskTimeMs),
		"wall: the write's wall in the share its commit took; core: its tasks' commit time")
	with := "the " + committer + " committer"
	if committer == "" {
		with = "Spark's default committer (read its _SUCCESS with --output-summaries to know which)"
	}
	detail := fmt.Sprintf("The write to %s spent %s of its %s task and commit time (%.0f%%) committing on S3 "+
		"(task commits %s, job commit %s) with %s, for %d files of %s in all.",
		w.Path, fmtMs(storeMs), fmtMs(writeMs), 100*share, fmtMs(w.TaskCommitMs), fmtMs(jobCommit), with,
		w.Files, units.Bytes(w.Bytes))
	detail += " " + s3Advice(committer, w, c)
	ev := map[string]any{"path": w.Path, "sqlId": w.SQLExecutionID, "committer": committer, "storeMs": storeMs,
		"writeTimeMs": writeMs, "share": round(share), "taskCommitMs": w.TaskCommitMs, "jobCommitMs": jobCommit,
		"taskTimeMs": w.TaskTimeMs, "wallMs": w.WallMs, "files": w.Files, "bytes": w.Bytes}
	if c != nil {
		ev["summary"] = c.Summary.Source
		ev["requestMs"], ev["requestCount"] = c.RequestMs, c.RequestCount
		if n := processRequests(c.Summary); n > 0 {
			ev["processStoreRequests"] = n
		}
	}
	return Finding{Severity: gate(sev, cost), StageIDs: w.StageIDs, Cost: cost, Detail: detail, Evidence: ev,
		Group: committerGroup(committer)}, true
}

// committerJobMs is the job commit's duration as the committer timed it
// (IOStatistics committer_commit_job); 0 without it.
func committerJobMs(s *s3a.Summary) int64 {
	for _, op := range s.Operations() {
		if op.Name == "committer_commit_job" {
			return op.DurationMs
		}
	}
	return 0
}

// processRequests is what the summary's metrics count of the committing
// process's S3 requests (store_io_request): its S3A filesystem's since it
// started, this write's and whatever that process did before.
func processRequests(s *s3a.Summary) int64 { return s.Metrics["store_io_request"] }

// committerName is the committer that committed the write: the summary
// says; else the application's configuration; else Hadoop's default,
// the classic FileOutputCommitter — before Spark 4.1, which turns the
// magic committer on for S3 by itself: there an unnamed committer is
// unknown ("") without the summary.
func committerName(p *Pass, c *analyze.CommittedWrite) string {
	if c != nil && c.Summary.Committer != "" {
		return c.Summary.Committer
	}
	if name, ok := strings.CutPrefix(p.Result.Config.Committer, "s3a:"); ok {
		return name
	}
	if analyze.VersionAtLeast(p.Attempt.SparkVersion, 4, 1) {
		return ""
	}
	return "file"
}

func committerGroup(name string) string {
	if name == "file" {
		return "classic"
	}
	return "s3a"
}

// s3Advice says what to change for the committer the write used.
func s3Advice(committer string, w analyze.OutputWrite, c *analyze.CommittedWrite) string {
	const classic = "The classic FileOutputCommitter renames every file twice, and on S3 a rename copies and deletes " +
		"each object: use an S3A committer (spark.hadoop.fs.s3a.committer.name=magic with Spark's " +
		"PathOutputCommitProtocol and BindingParquetOutputCommitter)."
	switch committer {
	case "file":
		return classic
	case "":
		return "If its _SUCCESS is empty: " + classic + " Else: " + s3Advice("an S3A", w, c)
	}
	per := ""
	if c != nil && w.Files > 0 && processRequests(c.Summary) > 0 {
		per = fmt.Sprintf(" (its process made %d S3 requests by then)", processRequests(c.Summary))
	}
	if w.Files > 0 && w.Bytes/w.Files < 16*mib {
		return fmt.Sprintf("Each file costs the committer a fixed round of requests (create, upload, "+
			"list, complete)%s: write fewer, bigger files — %s each now; aim for 128 MiB–1 GiB "+
			"(coalesce or repartition before the write).", per, units.Bytes(w.Bytes/w.Files))
	}
	return "The files are large enough: S3 itself is slow or throttling here — check the store's latency and " +
		"raise spark.hadoop.fs.s3a.committer.threads and fs.s3a.connection.maximum."
}

// s3Path tells whether an output path is on S3.
func s3Path(path string) bool {
	for _, s := range []string{"s3a://", "s3://", "s3n://"} {
		if strings.HasPrefix(path, s) {
			return true
		}
	}
	return false
}
