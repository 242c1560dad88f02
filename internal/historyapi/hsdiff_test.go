package historyapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/historyapi/hstest"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// logSet is one directory of event logs served by one History Server: a
// History Server keeps one application per id, so the same application in
// several codecs or forms needs a directory of its own.
type logSet struct {
	name  string
	paths []string // files or rolling directories, copied into the set's directory
}

func logSets(t *testing.T) []logSet {
	if dir := os.Getenv("SPARKDX_HSDIFF_LOGS"); dir != "" {
		return outsideSets(t, dir)
	}
	spark := sparktest.Spark(t)
	glob := func(pattern string) []string {
		m, _ := filepath.Glob(filepath.Join(spark, pattern))
		return m
	}
	var sets []logSet
	sets = append(sets, logSet{"spark-events", glob("spark-events/*")})
	sets = append(sets, logSet{"sql-core", glob("extra/sql-core-spark-events/*")})
	for _, codec := range []string{"lz4", "lzf", "snappy", "zstd"} {
		sets = append(sets, logSet{"codec-" + codec, glob("compressed/*." + codec)})
	}
	for _, r := range []string{"rolling-lz4", "rolling-zstd"} {
		sets = append(sets, logSet{r, glob("compressed/" + r + "/*")})
	}
	for _, p := range glob("compressed/*.inprogress") {
		sets = append(sets, logSet{"inprogress-" + filepath.Base(p), []string{p}})
	}
	for _, p := range glob("extra/spark-events-broken/*") {
		sets = append(sets, logSet{"broken-" + filepath.Base(p), glob("extra/spark-events-broken/" + filepath.Base(p) + "/*")})
	}
	scen, _ := filepath.Glob("../../testdata/scenarios/*/spark-*/app-*")
	if len(scen) > 0 {
		sets = append(sets, logSet{"scenarios", scen})
	}
	return sets
}

// outsideSets reads SPARKDX_HSDIFF_LOGS, a directory of logs kept out of
// the suite (production logs one may not commit): each subdirectory is one
// History Server's log directory, so an application id may repeat only
// across subdirectories. Symbolic links are followed.
func outsideSets(t *testing.T, dir string) []logSet {
	subs, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("SPARKDX_HSDIFF_LOGS: %v", err)
	}
	var sets []logSet
	for _, sub := range subs {
		entries, err := os.ReadDir(filepath.Join(dir, sub.Name()))
		if err != nil {
			continue
		}
		set := logSet{name: sub.Name()}
		for _, e := range entries {
			p, err := filepath.EvalSymlinks(filepath.Join(dir, sub.Name(), e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			set.paths = append(set.paths, p)
		}
		sets = append(sets, set)
	}
	return sets
}

// TestHistoryServerDifferential serves every shared and scenario log with
// Spark's own History Server of each Spark line and with sparkdx (the
// api's Get, as `sparkdx api`, and its HTTP handler, as `sparkdx serve`),
// asks both every /api/v1 document of every application, and compares them
// after the suite's normalisation. Differences that are not in
// hstest.KnownDifference fail the test; each endpoint prints "N passed, N failed".
func TestHistoryServerDifferential(t *testing.T) {
	lines := sparktest.SparkLines(t)
	sets := logSets(t)
	for _, line := range lines {
		if os.Getenv("SPARKDX_HSDIFF_LOGS") != "" && strings.HasPrefix(line.Version, "3.") {
			continue // outside logs are checked against the reference line only
		}
		t.Run(line.Version, func(t *testing.T) {
			tally := map[string]*count{}
			for _, set := range sets {
				t.Run(set.name, func(t *testing.T) { differential(t, line, set, tally) })
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range tally {
					if !yield(k) {
						return
					}
				}
			})
			total := count{}
			for _, k := range keys {
				c := tally[k]
				t.Logf("Spark %s %-45s %d passed, %d failed, %d known", line.Version, k, c.passed, c.failed, c.known)
				total.passed += c.passed
				total.failed += c.failed
				total.known += c.known
			}
			fmt.Printf("History Server %s differential: %d passed, %d failed (%d documents with known differences)\n",
				line.Version, total.passed, total.failed, total.known)
		})
	}
}

type count struct{ passed, failed, known int }

func differential(t *testing.T, line sparktest.SparkLine, set logSet, tally map[string]*count) {
	dir := t.TempDir()
	for _, p := range set.paths {
		if err := copyTree(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	// sparkdx replays once the History Server is up (see unfinishedAPI).
	want, err := replay.LoadApps(context.Background(), dir, replay.Options{})
	if err != nil {
		t.Fatalf("sparkdx: %v", err)
	}
	hs := sparktest.StartHistoryServer(t, line, dir, len(want))
	apps, err := replay.LoadApps(context.Background(), dir, replay.Options{})
	if err != nil {
		t.Fatalf("sparkdx: %v", err)
	}
	all := New(apps)
	for _, path := range hstest.ListEndpoints() {
		compareDocument(t, line, all, hs.URL, path, tally)
	}
	for _, app := range hstest.Apps(t, hs.URL) {
		api := unfinishedAPI(t, apps, app, all)
		paths := []string{"applications/" + app.ID}
		for _, at := range app.Attempts {
			paths = append(paths, hstest.AttemptEndpoints(t, hs.URL, at.Path)...)
		}
		for _, path := range paths {
			compareDocument(t, line, api, hs.URL, path, tally)
		}
	}
}

// unfinishedAPI replays application app again when some attempt of it is
// unfinished, from a copy of its log last modified when the History
// Server says it was last updated. An unfinished log's running tasks run
// to its last update: for sparkdx the log's modification time, for the
// History Server the instant its scan read the log (lastUpdated), up to
// minutes later on a directory of large logs. The copy gives both the
// same instant, so their durations must be equal. Otherwise, or when
// sparkdx did not load the application, it answers from all.
func unfinishedAPI(t *testing.T, apps []*model.App, app hstest.App, all *API) *API {
	stamps := map[string]int64{}
	for _, at := range app.Attempts {
		if !at.Completed {
			stamps[at.ID] = at.LastUpdatedEpoch
		}
	}
	if len(stamps) == 0 {
		return all
	}
	var attempts []*model.Attempt
	for _, a := range apps {
		if a.ID != app.ID {
			continue
		}
		for _, at := range a.Attempts {
			stamp, ok := stamps[at.AttemptID]
			if !ok {
				attempts = append(attempts, at)
				continue
			}
			copied := filepath.Join(t.TempDir(), filepath.Base(at.LogPath))
			if err := copyTree(at.LogPath, copied); err != nil {
				t.Fatal(err)
			}
			if err := touchTree(copied, time.UnixMilli(stamp)); err != nil {
				t.Fatal(err)
			}
			again, err := replay.LoadApps(context.Background(), copied, replay.Options{})
			if err != nil {
				t.Fatalf("sparkdx: %v", err)
			}
			for _, b := range again {
				for _, c := range b.Attempts {
					// The same log, read where the History Server reads it.
					c.LogPath, c.LogName = at.LogPath, at.LogName
					attempts = append(attempts, c)
				}
			}
		}
	}
	if len(attempts) == 0 {
		return all
	}
	return New(replay.GroupApps(attempts))
}

// touchTree sets the modification time of a file or of every file of a
// directory tree.
func touchTree(root string, at time.Time) error {
	return filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, at, at)
	})
}

// compareDocument asks sparkdx (api's Get and its HTTP handler) and the
// History Server at hsURL for one document and tallies the outcome.
func compareDocument(t *testing.T, line sparktest.SparkLine, api *API, hsURL, path string, tally map[string]*count) {
	srv := httptest.NewServer(api)
	defer srv.Close()
	kind := hstest.EndpointKind(path)
	c := tally[kind]
	if c == nil {
		c = &count{}
		tally[kind] = c
	}
	wantStatus, want := hstest.Get(t, hsURL+"/api/v1/"+path)
	gotStatus, got := hstest.Get(t, srv.URL+"/api/v1/"+path)
	var diffs []string
	if v, err := api.Get(path); err != nil {
		if StatusOf(err) != gotStatus {
			diffs = append(diffs, fmt.Sprintf("api.Get says %d, the handler %d", StatusOf(err), gotStatus))
		}
	} else if d := hstest.Diff(hstest.DecodeNorm(t, Marshal(v)), hstest.DecodeNorm(t, got)); len(d) > 0 {
		diffs = append(diffs, "api.Get and the handler differ: "+d[0])
	}
	// Spark 4 is the reference: sparkdx lists each object's keys as it
	// does and gives its log source (3.5 declares some fields elsewhere
	// and has no log source).
	if strings.HasPrefix(line.Version, "3.") {
		diffs = append(diffs, hstest.AnswerDiff(t, gotStatus, got, wantStatus, want)...)
	} else {
		diffs = append(diffs, hstest.LiveAnswerDiff(t, gotStatus, got, wantStatus, want)...)
	}
	unknown := hstest.Unknown(line.Version, path, diffs)
	switch {
	case len(unknown) > 0:
		c.failed++
		t.Errorf("%s:\n  %s", path, strings.Join(hstest.FirstN(unknown, 5), "\n  "))
	case len(diffs) > 0:
		c.known++
	default:
		c.passed++
	}
}

// copyTree copies a file or a directory tree.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
