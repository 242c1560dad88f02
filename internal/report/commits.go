package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/units"
)

// commitRow is one write beside its committer's summary, as the text
// and HTML reports show it.
type commitRow struct {
	Path, Committer, Files, Write, Commit, Store, Requests, Summary string
}

// maxRequestKinds is how many request kinds a row names, the most time
// (else the most requests) first.
const maxRequestKinds = 4

func commitRows(cs []reportv1.Commit) []commitRow {
	out := make([]commitRow, 0, len(cs))
	for _, c := range cs {
		committer := c.Committer + " committer"
		if c.Committer == "file" {
			committer = "classic FileOutputCommitter"
		}
		row := commitRow{Path: units.OneLine(c.Path), Committer: committer,
			Files: fmt.Sprintf("%s files, %s", fmtCount(c.Files), fmtBytes(c.Bytes)),
			Write: fmt.Sprintf("%s wall, %s tasks", fmtDuration(c.WallMs), fmtDuration(c.TaskTimeMs)),
			Commit: fmt.Sprintf("tasks %s, job %s (%s of the write)", fmtDuration(c.TaskCommitMs), fmtDuration(c.JobCommitMs),
				fmtPct(share(c.TaskCommitMs+c.JobCommitMs, c.WriteTimeMs))),
			Store: "-", Requests: requestKinds(c), Summary: units.OneLine(c.Summary)}
		var parts []string
		if c.RequestMs > 0 {
			parts = append(parts, fmt.Sprintf("%s requests %s (%s)", fmtCount(c.RequestCount), fmtDuration(c.RequestMs), fmtPct(c.Share)))
		}
		for _, op := range c.Operations {
			if op.DurationMs > 0 && (op.Name == "committer_commit_job" || op.Name == "committer_materialize_file") {
				parts = append(parts, fmt.Sprintf("%s %s× %s", op.Name, fmtCount(op.Count), fmtDuration(op.DurationMs)))
			}
		}
		if len(parts) > 0 {
			row.Store = strings.Join(parts, "; ")
		}
		out = append(out, row)
	}
	return out
}

// requestKinds names the requests of a write: the job's timed ones, else
// the committing process's counters.
func requestKinds(c reportv1.Commit) string {
	var parts []string
	for i, op := range c.Requests {
		if i == maxRequestKinds {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s× %s", op.Name, fmtCount(op.Count), fmtDuration(op.DurationMs)))
	}
	if len(parts) > 0 {
		return strings.Join(parts, ", ")
	}
	names := make([]string, 0, len(c.ProcessRequests))
	for k := range c.ProcessRequests {
		if k != "store_io_request" {
			names = append(names, k)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := c.ProcessRequests[b] - c.ProcessRequests[a]; d != 0 {
			return int(max(min(d, 1), -1))
		}
		return strings.Compare(a, b)
	})
	for i, k := range names {
		if i == maxRequestKinds {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", k, fmtCount(c.ProcessRequests[k])))
	}
	if len(parts) == 0 {
		return "-"
	}
	return "process: " + strings.Join(parts, ", ")
}

// writeCommits writes a block per write whose committer's summary was
// read (analyze --output-summaries).
func writeCommits(w io.Writer, cs []reportv1.Commit, st style) {
	rows := commitRows(cs)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s  %s\n", st.bold("Writes and their committers"), st.dim(plural(len(rows), "write")+
		" joined to the _SUCCESS summary its committer left"))
	for _, r := range rows {
		fmt.Fprintf(w, "  %s  %s\n", r.Path, st.dim(fmt.Sprintf("%s · %s · %s", r.Committer, r.Files, r.Write)))
		for _, l := range [][2]string{{"commit", r.Commit}, {"timed", r.Store}, {"requests", r.Requests}} {
			if l[1] != "-" {
				fmt.Fprintf(w, "    %s  %s\n", st.dim(fmt.Sprintf("%-8s", l[0])), l[1])
			}
		}
	}
}
