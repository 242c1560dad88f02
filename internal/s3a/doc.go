// Package s3a reads the summaries Hadoop's S3A committers leave in an
// output directory's _SUCCESS file: which committer wrote the output, and
// the IOStatistics of the job's S3 requests (their counts, durations and
// bytes). An empty _SUCCESS is the classic FileOutputCommitter's.
package s3a
