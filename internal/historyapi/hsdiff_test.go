package historyapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// logSet is logs a History Server serves together (the attempts of one
// application, a codec's copies): a History Server keeps one application
// per id, so the same application in several codecs or forms needs a set of
// its own; serverGroups packs the sets into History Servers.
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

// serverGroup is the logs one History Server serves: whole logSets packed
// so that no application id and no file name repeats within the group.
type serverGroup struct {
	name  string
	sets  []string // the logSets' names, for the log
	paths []string
}

// serverGroups packs sets into as few History Servers as their
// application ids allow — each History Server start costs a JVM and its
// replay, the documents asked are the same — taking the sets whose ids
// repeat most often first, each into the least filled group it fits.
func serverGroups(t *testing.T, sets []logSet) []serverGroup {
	t.Helper()
	if os.Getenv("SPARKDX_HSDIFF_LOGS") != "" {
		// Outside logs: each subdirectory is one History Server's, as given.
		var groups []serverGroup
		for _, s := range sets {
			groups = append(groups, serverGroup{name: s.name, sets: []string{s.name}, paths: s.paths})
		}
		return groups
	}
	type packed struct {
		set   logSet
		keys  []string // "id:" the set's application ids, "name:" its file names
		often int
	}
	seen := map[string]int{}
	var all []packed
	for _, set := range sets {
		p := packed{set: set}
		for _, path := range set.paths {
			for _, id := range appIDs(t, path) {
				p.keys = append(p.keys, "id:"+id)
			}
			p.keys = append(p.keys, "name:"+filepath.Base(path))
		}
		p.keys = slices.Compact(slices.Sorted(slices.Values(p.keys)))
		for _, k := range p.keys {
			seen[k]++
		}
		all = append(all, p)
	}
	for i := range all {
		for _, k := range all[i].keys {
			all[i].often = max(all[i].often, seen[k])
		}
	}
	slices.SortStableFunc(all, func(a, b packed) int { return b.often - a.often })
	var groups []serverGroup
	var taken []map[string]bool
	for _, p := range all {
		best := -1
		for g := range groups {
			if !slices.ContainsFunc(p.keys, func(k string) bool { return taken[g][k] }) &&
				(best < 0 || len(groups[g].paths) < len(groups[best].paths)) {
				best = g
			}
		}
		if best < 0 {
			best = len(groups)
			groups = append(groups, serverGroup{name: fmt.Sprintf("server-%d", best+1)})
			taken = append(taken, map[string]bool{})
		}
		groups[best].sets = append(groups[best].sets, p.set.name)
		groups[best].paths = append(groups[best].paths, p.set.paths...)
		for _, k := range p.keys {
			taken[best][k] = true
		}
	}
	return groups
}

// appIDs returns the application ids of the logs at path (a log file or a
// rolling log's directory), read from their SparkListenerApplicationStart
// events, which Spark writes among a log's first lines.
func appIDs(t *testing.T, path string) []string {
	t.Helper()
	logs, err := eventlog.Open(context.Background(), path, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range logs {
		r, err := l.NewReader(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var ev struct {
				Event string `json:"Event"`
				AppID string `json:"App ID"`
			}
			if bytes.Contains(sc.Bytes(), []byte(`"SparkListenerApplicationStart"`)) && json.Unmarshal(sc.Bytes(), &ev) == nil && ev.AppID != "" {
				ids = append(ids, ev.AppID)
				break
			}
		}
		err = sc.Err()
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", l.Path, err)
		}
	}
	return ids
}

// TestHistoryServerDifferential serves every shared and scenario log with
// Spark's own History Server of each Spark line and with sparkdx (the
// api's Get, as `sparkdx api`, and its HTTP handler, as `sparkdx serve`),
// asks both every /api/v1 document of every application, and compares them
// after the suite's normalisation. Differences that are not in
// hstest.KnownDifference fail the test; each endpoint prints "N passed, N failed".
// The logs are packed into as few History Servers as their ids allow
// (serverGroups): 9 per line instead of one per logSet.
func TestHistoryServerDifferential(t *testing.T) {
	lines := sparktest.SparkLines(t)
	groups := serverGroups(t, logSets(t))
	for _, g := range groups {
		t.Logf("%s: %s", g.name, strings.Join(g.sets, ", "))
	}
	for _, line := range lines {
		if os.Getenv("SPARKDX_HSDIFF_LOGS") != "" && strings.HasPrefix(line.Version, "3.") {
			continue // outside logs are checked against the reference line only
		}
		t.Run(line.Version, func(t *testing.T) {
			// The lines run side by side (go test's -parallel bounds
			// them): one line's History Server start overlaps the other
			// line's comparisons instead of waiting for them.
			t.Parallel()
			tally := map[string]*count{}
			for _, g := range groups {
				t.Run(g.name, func(t *testing.T) { differential(t, line, g.paths, tally) })
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

// TestServerGroups checks the packing TestHistoryServerDifferential relies
// on: every log served once, no application id or file name twice in one
// History Server, and fewer servers than sets.
func TestServerGroups(t *testing.T) {
	sets := logSets(t)
	setOf := map[string]string{}
	for _, s := range sets {
		for _, p := range s.paths {
			setOf[p] = s.name
		}
	}
	groups := serverGroups(t, sets)
	served := 0
	for _, g := range groups {
		idSet, names := map[string]string{}, map[string]bool{}
		for _, p := range g.paths {
			served++
			if names[filepath.Base(p)] {
				t.Errorf("%s serves two logs named %s", g.name, filepath.Base(p))
			}
			names[filepath.Base(p)] = true
			for _, id := range appIDs(t, p) {
				if s, ok := idSet[id]; ok && s != setOf[p] {
					t.Errorf("%s serves application %s from %s and %s", g.name, id, s, setOf[p])
				}
				idSet[id] = setOf[p]
			}
		}
	}
	if served != len(setOf) {
		t.Errorf("the History Servers serve %d logs, the sets hold %d", served, len(setOf))
	}
	if len(groups) >= len(sets) {
		t.Errorf("%d History Servers for %d sets, want fewer", len(groups), len(sets))
	}
	t.Logf("%d sets in %d History Servers", len(sets), len(groups))
}

type count struct{ passed, failed, known int }

func differential(t *testing.T, line sparktest.SparkLine, paths []string, tally map[string]*count) {
	dir := t.TempDir()
	for _, p := range paths {
		if err := copyTree(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	// One replay: an unfinished log's answers come from unfinishedAPI's
	// copy dated as the History Server read it, so when sparkdx reads the
	// directory does not matter.
	apps, err := replay.LoadApps(context.Background(), dir, replay.Options{})
	if err != nil {
		t.Fatalf("sparkdx: %v", err)
	}
	hs := sparktest.StartHistoryServer(t, line, dir, len(apps))
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
