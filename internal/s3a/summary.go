package s3a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxSummaryBytes bounds a _SUCCESS file: Hadoop lists at most 100 file
// names in it (CommitConstants.SUCCESS_MARKER_FILE_LIMIT), so a real
// summary is a few tens of KiB; anything far larger is not one.
const MaxSummaryBytes = 4 << 20

// Names that identify a summary: the S3A committers' SuccessData, and
// the manifest committer's ManifestSuccessData, whose JSON Hadoop keeps
// compatible with it.
const (
	successDataName  = "org.apache.hadoop.fs.s3a.commit.files.SuccessData/"
	manifestDataName = "org.apache.hadoop.mapreduce.lib.output.committer.manifest.files.ManifestSuccessData/"
)

// Summary is one _SUCCESS file: the committer that committed an output
// directory and what its job did. An Empty summary is the classic
// FileOutputCommitter's zero-length marker, which says only that.
type Summary struct {
	// Source is where the summary was read from (a path or URL).
	Source string `json:"source"`
	// Dest is the output directory the summary is known to describe: the
	// output path it was read under, or its directory's path in a tree of
	// copies (ReadTree); empty when only its content says.
	Dest string `json:"dest,omitempty"`
	// Empty marks a zero-length _SUCCESS: Hadoop's FileOutputCommitter.
	Empty       bool              `json:"empty,omitempty"`
	Name        string            `json:"name,omitempty"`
	Committer   string            `json:"committer,omitempty"` // "magic", "directory", "partitioned", "staging", "manifest"
	Hostname    string            `json:"hostname,omitempty"`
	Description string            `json:"description,omitempty"`
	JobID       string            `json:"jobId,omitempty"`
	JobIDSource string            `json:"jobIdSource,omitempty"`
	Timestamp   int64             `json:"timestamp,omitempty"` // epoch ms of the job commit
	Filenames   []string          `json:"filenames,omitempty"` // the first files committed (Hadoop keeps ≤ 100)
	Diagnostics map[string]string `json:"diagnostics,omitempty"`
	Metrics     map[string]int64  `json:"metrics,omitempty"`
	Stats       IOStatistics      `json:"iostatistics"`
}

// IOStatistics is Hadoop's IOStatisticsSnapshot as JSON: counters,
// gauges, the minimum, maximum and mean of each duration-tracked
// operation (Hadoop names them "<op>.min", "<op>.max", "<op>.mean").
type IOStatistics struct {
	Counters map[string]int64 `json:"counters,omitempty"`
	Gauges   map[string]int64 `json:"gauges,omitempty"`
	Minimums map[string]int64 `json:"minimums,omitempty"`
	Maximums map[string]int64 `json:"maximums,omitempty"`
	Means    map[string]Mean  `json:"meanstatistics,omitempty"`
}

// Mean is one mean statistic: how many samples and their sum (for a
// duration, milliseconds).
type Mean struct {
	Samples int64 `json:"samples"`
	Sum     int64 `json:"sum"`
}

// ErrNotSummary is the error for a file that is JSON but no committer's
// summary (its "name" is missing or another's).
var ErrNotSummary = errors.New("not an S3A or manifest committer summary")

// Read reads one _SUCCESS file from r; name says where it came from in
// errors and in the summary. A file past MaxSummaryBytes, malformed JSON
// (the error names the byte offset) or another file's JSON is an error.
func Read(name string, r io.Reader) (*Summary, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSummaryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("s3a: %s: %w", name, err)
	}
	if len(b) > MaxSummaryBytes {
		return nil, fmt.Errorf("s3a: %s: larger than %d bytes: not a committer summary", name, MaxSummaryBytes)
	}
	return Parse(name, b)
}

// Parse reads one _SUCCESS file's bytes (see Read).
func Parse(name string, b []byte) (*Summary, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		if len(b) != 0 {
			return nil, fmt.Errorf("s3a: %s: only white space: %w", name, ErrNotSummary)
		}
		return &Summary{Source: name, Empty: true, Committer: "file"}, nil
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("s3a: %s: %w", name, jsonErr(b, err))
	}
	if !strings.HasPrefix(s.Name, successDataName) && !strings.HasPrefix(s.Name, manifestDataName) {
		return nil, fmt.Errorf("s3a: %s: name %q: %w", name, clip(s.Name), ErrNotSummary)
	}
	s.Source, s.Empty = name, false
	return &s, nil
}

// jsonErr says where in b the JSON went wrong: encoding/json's syntax and
// type errors carry a byte offset, which the message shows.
func jsonErr(b []byte, err error) error {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Errorf("offset %d: %w", se.Offset, err)
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Errorf("offset %d: field %s: %w", te.Offset, te.Field, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("offset %d: %w", len(b), err)
	}
	return err
}

// clip keeps a hostile field short in an error message.
func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
