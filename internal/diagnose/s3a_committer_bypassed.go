package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/analyze"
)

var bypassedWrites = Threshold{Metric: "writes to S3 that the S3A committer named does not commit", Warning: 1,
	Gate: "spark.hadoop.fs.s3a.committer.name names an S3A committer while spark.sql.sources.commitProtocolClass " +
		"is not PathOutputCommitProtocol; or the write's _SUCCESS names an S3A committer and lists none of the files " +
		"it wrote; a risk, not a time cost: not gated",
	Source: "Spark's HadoopMapReduceCommitProtocol stages a task's files only for a FileOutputCommitter and writes " +
		"them straight to the destination for any other committer; Hadoop's S3A committer documentation binds Spark " +
		"through spark-hadoop-cloud's PathOutputCommitProtocol and BindingParquetOutputCommitter"}

// S3ACommitterBypassed reports writes to S3 whose S3A committer is
// configured but never commits them.
var S3ACommitterBypassed = &Rule{
	ID:     "s3a-committer-bypassed",
	Title:  "The S3A committer does not commit the write",
	Recipe: "troubleshoot/s3-write-slow.md#s3a-committer-bypassed",
	Doc: "An S3A committer (magic, directory, partitioned) is configured, but Spark's default commit protocol " +
		"writes each task's files straight to the destination (or, for Parquet, commits with the classic " +
		"ParquetOutputCommitter): the committer commits nothing, its _SUCCESS lists no files.",
	Thresholds: []Threshold{bypassedWrites},
	Run:        runS3ACommitterBypassed,
}

// s3aCommitters are the S3A committers that need Spark's cloud binding.
var s3aCommitters = []string{"magic", "directory", "partitioned", "staging"}

func runS3ACommitterBypassed(p *Pass) []Finding {
	if p.Attempt == nil {
		return nil
	}
	props := map[string]string{}
	for _, kv := range p.Attempt.Env.SparkProperties {
		props[kv[0]] = kv[1]
	}
	named := props["spark.hadoop.fs.s3a.committer.name"]
	bound := strings.Contains(props["spark.sql.sources.commitProtocolClass"], "PathOutputCommitProtocol")
	var out []Finding
	for _, w := range analyze.OutputWrites(p.Attempt, p.Result) {
		if !s3Path(w.Path) || w.Files == 0 {
			continue
		}
		ev := map[string]any{"path": w.Path, "sqlId": w.SQLExecutionID, "format": w.Format, "files": w.Files,
			"configuredCommitter": named, "commitProtocol": props["spark.sql.sources.commitProtocolClass"]}
		var detail string
		if c := summaryOf(p.Commits, w); c != nil {
			s := c.Summary
			if s.Empty || !slices.Contains(s3aCommitters, s.Committer) || len(s.Filenames) > 0 || committedFiles(c) > 0 {
				continue
			}
			ev["summary"], ev["committer"] = s.Source, s.Committer
			detail = fmt.Sprintf("The write to %s wrote %d files, but its _SUCCESS says the %s committer committed none "+
				"(no files listed, no upload completed): the tasks wrote them straight to the destination.",
				w.Path, w.Files, s.Committer)
		} else {
			if bound || !slices.Contains(s3aCommitters, named) {
				continue
			}
			detail = fmt.Sprintf("The write to %s (%s, %d files) runs with the %s committer configured but Spark's "+
				"default commit protocol, which ", w.Path, w.Format, w.Files, named)
			if strings.EqualFold(w.Format, "parquet") {
				detail += "commits Parquet with the classic ParquetOutputCommitter: renames, as if no S3A committer were set."
			} else {
				detail += "writes each task's files straight to the destination: the committer commits nothing."
			}
		}
		detail += " A failed or retried task can leave partial or duplicate files visible. Bind the committer: " +
			"spark.sql.sources.commitProtocolClass=org.apache.spark.internal.io.cloud.PathOutputCommitProtocol and " +
			"spark.sql.parquet.output.committer.class=org.apache.spark.internal.io.cloud.BindingParquetOutputCommitter " +
			"(Spark's spark-hadoop-cloud module on the classpath)."
		out = append(out, Finding{Severity: Warning, StageIDs: w.StageIDs, Detail: detail, Evidence: ev})
	}
	return out
}

// committedFiles is how many files the committer's job completed
// (committer_materialize_file), 0 without the statistic.
func committedFiles(c *analyze.CommittedWrite) int64 {
	for _, op := range c.Summary.Operations() {
		if op.Name == "committer_materialize_file" {
			return op.Count
		}
	}
	return 0
}
