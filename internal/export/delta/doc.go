// Package delta writes append-only Delta Lake tables: Parquet data files and
// the _delta_log transaction log (protocol reader 1 / writer 2, no table
// features), with per-file statistics, checkpoints and optimistic
// concurrency over a local directory or an S3 bucket. It also defines the
// sparkdx tables (apps, jobs, stages, executors, findings, samples) and the
// rows they hold.
//
// No Go Delta library is used: the log is written from PROTOCOL.md of
// delta-io/delta, and the package deltacheck replays it independently.
package delta
