package ingest

import (
	"errors"
	"sort"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
)

// LogState is where one log stands.
type LogState string

// The states of a log.
const (
	StateQueued  LogState = "queued"  // found, not read yet
	StateRunning LogState = "running" // tailed: the application is still writing it
	StateDone    LogState = "done"    // finished and analysed
	StateFailed  LogState = "failed"  // could not be read; Error says why
	StateSkipped LogState = "skipped" // in a log directory but not read as a log; Error says why
)

// LogStatus is one log as /api/sparkdx/v1/logs shows it.
type LogStatus struct {
	Path     string   `json:"path"`
	State    LogState `json:"state"`
	AppID    string   `json:"appId,omitempty"`
	Bytes    int64    `json:"bytes"`              // stored size when last seen
	Events   int64    `json:"events"`             // events applied
	BadLines int64    `json:"badLines,omitempty"` // malformed lines skipped
	// ImpossibleValues counts the values the log recorded that cannot be
	// (a task ending before it started, a sum past int64); the figures
	// built on them are clamped.
	ImpossibleValues int64  `json:"impossibleValues,omitempty"`
	Error            string `json:"error,omitempty"`
	// WaitingMs is how long a change of the log has waited to be read.
	WaitingMs int64 `json:"waitingMs,omitempty"`
}

// RootStatus is one --event-logs root and how its last listing went.
type RootStatus struct {
	Root  string `json:"root"`
	Error string `json:"error,omitempty"`
}

// LogsStatus is every log the ingester knows or passed over.
type LogsStatus struct {
	Roots []RootStatus `json:"roots"`
	Logs  []LogStatus  `json:"logs"`
}

// maxSkipped bounds the skipped entries kept from one scan.
const maxSkipped = 1000

// scanReport is what the last scan found wrong: a root it could not list,
// the entries it passed over. Set by scan under Ingester.mu.
type scanReport struct {
	rootErrors map[string]string
	skipped    []LogStatus
}

// skip records an entry the listing passed over; hidden and checksum files
// (.crc, .DS_Store) are not worth a line.
func (r *scanReport) skip(path string, reason error) {
	if errors.Is(reason, eventlog.ErrHidden) || len(r.skipped) >= maxSkipped {
		return
	}
	r.skipped = append(r.skipped, LogStatus{Path: path, State: StateSkipped, Error: reason.Error()})
}

// Logs reports every log, every entry the last scan passed over and every
// root, so that a log that is not shown says why.
func (in *Ingester) Logs() LogsStatus {
	in.mu.Lock()
	now := time.Now()
	out := LogsStatus{Roots: make([]RootStatus, 0, len(in.cfg.Roots)), Logs: make([]LogStatus, 0, len(in.entries))}
	for _, root := range in.cfg.Roots {
		out.Roots = append(out.Roots, RootStatus{Root: root, Error: in.report.rootErrors[root]})
	}
	losers := in.shadowedLocked()
	for key, e := range in.entries {
		r := e.rec.get()
		s := LogStatus{Path: r.Path, AppID: r.AppID, Bytes: r.Size, Events: r.Events, BadLines: r.Bad, ImpossibleValues: r.Impossible, Error: r.Error}
		switch {
		case r.Done && r.Error != "":
			s.State = StateFailed
		case r.Done:
			s.State = StateDone
		case r.AppID != "":
			s.State = StateRunning
		default:
			s.State = StateQueued
		}
		if winner, lost := losers[key]; lost {
			s.State = StateDuplicate
			s.Error = "application " + r.AppID + attemptName(r.AttemptID) + " is also in " + winner + ", which changed last and is shown"
		}
		if e.sched.scheduled {
			s.WaitingMs = now.Sub(e.sched.queuedAt).Milliseconds()
		}
		out.Logs = append(out.Logs, s)
	}
	out.Logs = append(out.Logs, in.report.skipped...)
	in.mu.Unlock()
	sort.Slice(out.Logs, func(i, j int) bool { return out.Logs[i].Path < out.Logs[j].Path })
	return out
}

// Problems says what is wrong with ingest, if anything: a root whose last
// listing failed, a log that failed, a change waiting longer than stuck.
func (ls LogsStatus) Problems(stuck time.Duration) []string {
	var problems []string
	for _, r := range ls.Roots {
		if r.Error != "" {
			problems = append(problems, "cannot list "+r.Root+": "+r.Error)
		}
	}
	for _, l := range ls.Logs {
		switch {
		case l.State == StateFailed:
			problems = append(problems, "log "+l.Path+" failed: "+l.Error)
		case time.Duration(l.WaitingMs)*time.Millisecond > stuck:
			problems = append(problems, "log "+l.Path+" has waited "+(time.Duration(l.WaitingMs)*time.Millisecond).Round(time.Second).String()+" to be read")
		}
	}
	return problems
}
