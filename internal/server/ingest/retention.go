package ingest

import (
	"slices"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
)

// Retention bounds which event logs serve keeps, as the History Server's
// cleaner does (spark.history.fs.cleaner.maxAge and maxNum) but without
// deleting anything in the log directories: serve may only read them, and
// other readers (Spark's History Server, an archive job) may need them. A
// log past retention is not read; when the store holds it, it is dropped
// from the store and the fleet like a deleted log. A log that changes
// again (a new modification time) is judged again.
type Retention struct {
	// MaxAge: a log whose newest part was last modified longer ago than
	// this is past retention, running or not (an .inprogress log nobody
	// wrote to for that long is an application that died without its end
	// event). 0 keeps logs whatever their age.
	MaxAge time.Duration
	// MaxFinished: at most this many finished logs are kept, those
	// modified last; running logs are never dropped for it. 0: no bound.
	MaxFinished int
}

// expired returns the paths of the logs past r at now (nil when r bounds
// nothing).
func (r Retention) expired(found []*eventlog.Log, now time.Time) map[string]bool {
	if r.MaxAge <= 0 && r.MaxFinished <= 0 {
		return nil
	}
	out := map[string]bool{}
	var finished []*eventlog.Log
	for _, l := range found {
		if r.MaxAge > 0 && now.Sub(l.ModTime) > r.MaxAge {
			out[l.Path] = true
			continue
		}
		if !l.InProgress {
			finished = append(finished, l)
		}
	}
	if r.MaxFinished > 0 && len(finished) > r.MaxFinished {
		// The newest first; among logs of one modification time, by path,
		// so that the same listing always keeps the same logs.
		slices.SortFunc(finished, func(a, b *eventlog.Log) int {
			if c := b.ModTime.Compare(a.ModTime); c != 0 {
				return c
			}
			if a.Path < b.Path {
				return -1
			}
			return 1
		})
		for _, l := range finished[r.MaxFinished:] {
			out[l.Path] = true
		}
	}
	return out
}
