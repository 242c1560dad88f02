package eventlog

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog/codec"
)

// Databricks-style rotation: the live log is a file named `eventlog`; older
// parts are renamed eventlog-YYYY-MM-DD--HH-MM and usually gzipped.
const (
	rotationLive       = "eventlog"
	rotationTimeLayout = "2006-01-02--15-04"
)

// rotationTime parses the time of a rotated part's name.
func rotationTime(name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, rotationLive+"-")
	if !ok {
		return time.Time{}, false
	}
	rest = strings.TrimSuffix(rest, ".gz")
	t, err := time.Parse(rotationTimeLayout, rest)
	return t, err == nil
}

// isRotationDir reports whether a directory is one rotation: it holds
// rotation parts and no other (visible) file, so a directory of logs that
// happens to hold a file named eventlog stays a directory of logs.
func isRotationDir(entries []Entry) bool {
	found := false
	for _, e := range entries {
		if e.IsDir || hiddenName(e.Name) {
			continue
		}
		if _, ok := rotationTime(e.Name); !ok && e.Name != rotationLive {
			return false
		}
		found = true
	}
	return found
}

// rotationLog orders the rotated parts by their time, then the live file.
func rotationLog(store Store, dir Entry, entries []Entry) (*Log, error) {
	type rotated struct {
		t time.Time
		e Entry
	}
	var parts []rotated
	var live *Entry
	for i, e := range entries {
		if e.IsDir || hiddenName(e.Name) {
			continue
		}
		if e.Name == rotationLive {
			live = &entries[i]
		} else if t, ok := rotationTime(e.Name); ok {
			parts = append(parts, rotated{t, e})
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].t.Before(parts[j].t) })
	l := &Log{Path: dir.Path, Name: dir.Name, store: store}
	add := func(e Entry) {
		l.Parts = append(l.Parts, Part{Path: e.Path, Size: e.Size, ModTime: e.ModTime, Codec: codec.FromName(e.Name), Index: len(l.Parts)})
	}
	for _, p := range parts {
		add(p.e)
	}
	if live != nil {
		add(*live)
	}
	if len(l.Parts) == 0 {
		return nil, fmt.Errorf("eventlog: %s: rotation directory without parts", dir.Path)
	}
	l.sum()
	return l, nil
}
