package ingest

import "github.com/sparkdx/sparkdx/internal/server/store"

// Two logs may hold one application attempt (the same application id and
// attempt id): a log copied into a second --event-logs root, an
// application re-run with a fixed spark.app.id. The History Server
// replaces an attempt with the last log it parsed. sparkdx shows one of
// them everywhere — the REST API, the UI, /metrics, the fleet — so that
// no two views disagree: the log that changed last (its modification
// time; on a tie, the first path in order). The other is listed in
// /api/sparkdx/v1/logs as "duplicate", naming the log shown.

// StateDuplicate is a log whose application attempt another log also
// holds and wins (Error names it).
const StateDuplicate LogState = "duplicate"

// shadowSet is the losers of the current index version: key → the path of
// the log shown instead.
type shadowSet struct {
	version uint64
	losers  map[string]string
}

// shadowedLocked returns the logs another log's attempt shadows, for the
// current index version; in.mu must be held.
func (in *Ingester) shadowedLocked() map[string]string {
	v := in.version.Load()
	if in.shadow.losers != nil && in.shadow.version == v {
		return in.shadow.losers
	}
	type attempt struct{ app, attempt string }
	best := map[attempt]store.LogRecord{}
	losers := map[string]string{}
	for _, e := range in.entries {
		r := e.rec.get()
		if r.AppID == "" {
			continue
		}
		k := attempt{r.AppID, r.AttemptID}
		b, ok := best[k]
		switch {
		case !ok:
			best[k] = r
		case wins(r, b):
			losers[b.Key] = r.Path
			best[k] = r
		default:
			losers[r.Key] = b.Path
		}
	}
	// A loser's winner may itself have lost later in the walk: name the
	// log finally shown.
	for k := range losers {
		if r := in.entries[k]; r != nil {
			rec := r.rec.get()
			losers[k] = best[attempt{rec.AppID, rec.AttemptID}].Path
		}
	}
	in.shadow = shadowSet{version: v, losers: losers}
	return losers
}

// wins says whether log a is shown rather than log b of the same attempt.
func wins(a, b store.LogRecord) bool {
	if a.ModTime != b.ModTime {
		return a.ModTime > b.ModTime
	}
	return a.Key < b.Key
}

func attemptName(id string) string {
	if id == "" {
		return ""
	}
	return " attempt " + id
}
