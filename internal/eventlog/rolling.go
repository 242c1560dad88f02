package eventlog

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

// Rolling event log v2 (Spark 3.0+, spark.eventLog.rolling.enabled): a
// directory eventlog_v2_<appId>[_<attempt>] holding events_<N>_<appId>[.codec]
// files, compacted ones ending in .compact, and an empty
// appstatus_<appId>[.inprogress] file whose name says whether the app runs.
const (
	rollingDirPrefix = "eventlog_v2_"
	eventsFilePrefix = "events_"
	appStatusPrefix  = "appstatus_"
	compactSuffix    = ".compact"
)

// rollingLog orders a rolling directory's parts the way Spark's
// RollingEventLogFilesFileReader does: by index (a .compact file after a
// plain one of the same index), from the newest .compact file on, with no
// index missing.
func rollingLog(store Store, dir Entry, entries []Entry) (*Log, error) {
	l := &Log{Path: dir.Path, Name: dir.Name, Rolling: true, InProgress: true, store: store}
	var status bool
	for _, e := range entries {
		switch {
		case e.IsDir || hiddenName(e.Name):
		case strings.HasPrefix(e.Name, appStatusPrefix):
			if !status {
				status = true
				l.InProgress = strings.HasSuffix(e.Name, inProgressSuffix)
			}
		case strings.HasPrefix(e.Name, eventsFilePrefix):
			idx, err := eventsIndex(e.Name)
			if err != nil {
				return nil, fmt.Errorf("eventlog: %s: %w", e.Path, err)
			}
			l.Parts = append(l.Parts, Part{
				Path: e.Path, Size: e.Size, ModTime: e.ModTime, Codec: codec.FromName(e.Name),
				Index: idx, Compact: strings.HasSuffix(e.Name, compactSuffix),
			})
		}
	}
	// No appstatus file: Spark writes it first, so the directory is being
	// created (or damaged); InProgress stays true so a cut is no error.
	if len(l.Parts) == 0 {
		return nil, fmt.Errorf("eventlog: %s: rolling log without %s files", dir.Path, eventsFilePrefix)
	}
	sort.SliceStable(l.Parts, func(i, j int) bool {
		a, b := l.Parts[i], l.Parts[j]
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		return !a.Compact && b.Compact
	})
	for i := len(l.Parts) - 1; i >= 0; i-- {
		if l.Parts[i].Compact {
			l.Parts = l.Parts[i:]
			break
		}
	}
	for i, p := range l.Parts {
		if want := l.Parts[0].Index + i; p.Index != want {
			return nil, fmt.Errorf("eventlog: %s: missing event log file %d (found %s)", dir.Path, want, indexList(l.Parts))
		}
	}
	l.sum()
	return l, nil
}

// eventsIndex parses N from events_<N>_<appId>...
func eventsIndex(name string) (int, error) {
	num, _, ok := strings.Cut(strings.TrimPrefix(name, eventsFilePrefix), "_")
	if !ok {
		return 0, fmt.Errorf("event log file name %q: want events_<index>_<appId>", name)
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("event log file name %q: index %q is not a number", name, num)
	}
	return n, nil
}

func indexList(parts []Part) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = strconv.Itoa(p.Index)
	}
	return strings.Join(s, ",")
}
