package analyze

import (
	"path"
	"strings"

	"github.com/sparkdx/sparkdx/internal/s3a"
)

// CommittedWrite is one output write joined to the summary its
// committer left in the output's _SUCCESS.
type CommittedWrite struct {
	Write   OutputWrite
	Summary *s3a.Summary
	// Requests are the object-store requests of the job by kind, the
	// most time first; RequestMs and RequestCount their sums.
	Requests     []s3a.Operation
	RequestCount int64
	RequestMs    int64
	// WriteTimeMs is the write's time in the units the requests are
	// counted in, thread time: Σ task time of its write stages plus the
	// driver's job commit. Share is RequestMs ÷ WriteTimeMs.
	WriteTimeMs int64
	Share       float64
}

// commitSlackMs is how long after its SQL execution ends a summary may
// be stamped: the execution ends when the driver's commit returned, and
// clocks of the driver and the committing host can differ a little.
const commitSlackMs = 60_000

// JoinSummaries joins each write to the summary of its output: the one
// whose directory is the write's path (read there, or copied under its
// bucket and key), or that lists a file under it, stamped while the
// write ran. When a path was written more than once, a summary goes to
// the write whose span holds its stamp; an unstamped one (the classic
// committer's empty file) to the last write of the path. Writes without a
// summary are left out.
func JoinSummaries(writes []OutputWrite, sums []*s3a.Summary) []CommittedWrite {
	var out []CommittedWrite
	for i, w := range writes {
		for _, s := range sums {
			if !describes(s, w.Path) || !stampedIn(s, w) {
				continue
			}
			if s.Timestamp == 0 && laterWrite(writes[i+1:], w.Path) {
				continue
			}
			out = append(out, commitOf(w, s))
			break
		}
	}
	return out
}

func commitOf(w OutputWrite, s *s3a.Summary) CommittedWrite {
	c := CommittedWrite{Write: w, Summary: s, Requests: s.Requests(), WriteTimeMs: w.TaskTimeMs + w.JobCommitMs}
	for _, r := range c.Requests {
		c.RequestCount += r.Count + r.Failures
		c.RequestMs += r.DurationMs
	}
	if c.WriteTimeMs > 0 {
		c.Share = float64(c.RequestMs) / float64(c.WriteTimeMs)
	}
	return c
}

func laterWrite(writes []OutputWrite, p string) bool {
	for _, w := range writes {
		if sameDir(w.Path, p) {
			return true
		}
	}
	return false
}

// stampedIn tells whether s was written while w ran (or has no stamp).
func stampedIn(s *s3a.Summary, w OutputWrite) bool {
	if s.Timestamp == 0 || w.StartTime <= 0 {
		return true
	}
	end := w.EndTime
	if end <= 0 {
		end = w.StartTime
	}
	return s.Timestamp >= w.StartTime-commitSlackMs && s.Timestamp <= end+commitSlackMs
}

// describes tells whether s is the summary of the output directory p.
func describes(s *s3a.Summary, p string) bool {
	dir := canonical(p)
	if s.Dest != "" {
		dest := canonical(s.Dest)
		if dest == dir || (!strings.Contains(s.Dest, ":") && dest != "." && strings.HasSuffix(dir, "/"+strings.TrimPrefix(dest, "/"))) {
			return true
		}
	}
	// The S3A committers list the files by their path in the bucket
	// ("/out/part-00000-….parquet"), other committers by full URL.
	key := dir
	if scheme, rest, ok := strings.Cut(dir, "://"); ok && scheme == "s3" {
		_, k, _ := strings.Cut(rest, "/")
		key = "/" + k
	}
	for _, f := range s.Filenames {
		if c := canonical(f); strings.HasPrefix(c, dir+"/") || strings.HasPrefix(f, "/") && strings.HasPrefix(c, key+"/") {
			return true
		}
	}
	return false
}

func sameDir(a, b string) bool { return canonical(a) == canonical(b) }

// canonical writes an output path one way: the S3 schemes as s3://,
// file:/x and file:///x as /x, no trailing slash.
func canonical(p string) string {
	for _, scheme := range []string{"s3a://", "s3n://"} {
		if rest, ok := strings.CutPrefix(p, scheme); ok {
			p = "s3://" + rest
		}
	}
	if rest, ok := strings.CutPrefix(p, "file:"); ok {
		p = "/" + strings.TrimLeft(rest, "/")
	}
	if scheme, rest, ok := strings.Cut(p, "://"); ok {
		return scheme + "://" + strings.TrimSuffix(path.Clean("/" + rest)[1:], "/")
	}
	return path.Clean(p)
}
