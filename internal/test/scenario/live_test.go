package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestLive runs the scenarios on a real standalone cluster of every Spark
// line and checks their expectations on the log Spark writes. A scenario
// whose live key (LiveKey: its files, the Spark pin, the harness) is the
// one of its recorded passing run (live.json) is not run again: its
// committed log is checked instead. A passing live run records its
// verdict (commit live.json); SPARKDX_LIVE=all runs every scenario again.
// With -update it replaces the committed logs too (go test
// ./internal/test/scenario -run TestLive -update). SPARKDX_SCENARIOS=a,b runs
// only those.
func TestLive(t *testing.T) {
	sparktest.Live(t)
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("SPARKDX_SCENARIOS"), ",") {
		if n != "" {
			only[n] = true
		}
	}
	var selected []*Scenario
	for _, s := range loadAll(t) {
		if len(only) == 0 || only[s.Name] {
			selected = append(selected, s)
		}
	}
	for _, version := range sparktest.SparkVersions(t) {
		t.Run(version, func(t *testing.T) {
			plans := make([]livePlan, len(selected))
			// Scenarios that change nothing in the cluster share one per
			// shape, started for the first that runs and stopped after
			// the last, instead of a Master and Workers each.
			left := map[Cluster]int{}
			for i, s := range selected {
				plans[i] = planLive(t, repoRoot(t), s, version, *update || os.Getenv("SPARKDX_LIVE") == "all")
				if plans[i].run && sharesCluster(s) {
					left[s.Cluster]++
				}
			}
			var line sparktest.SparkLine
			shared := map[Cluster]*sparktest.Cluster{}
			for i, s := range selected {
				p := plans[i]
				if !p.run {
					t.Run(s.Name, func(t *testing.T) { reuse(t, s, version, p) })
					continue
				}
				if line.Version == "" {
					line = sparktest.SparkLineOf(t, version)
				}
				var c *sparktest.Cluster
				if sharesCluster(s) {
					if shared[s.Cluster] == nil {
						shared[s.Cluster] = startCluster(t, line, s)
					}
					c = shared[s.Cluster]
				}
				t.Run(s.Name, func(t *testing.T) {
					if p.why != "" {
						t.Logf("runs live: %s", p.why)
					}
					if c == nil {
						c = startCluster(t, line, s)
					}
					live(t, line, c, s, p.key)
				})
				if sharesCluster(s) {
					if left[s.Cluster]--; left[s.Cluster] == 0 {
						c.Stop()
					}
				}
			}
		})
	}
}

// livePlan is whether a scenario runs live on a Spark line, and why.
type livePlan struct {
	run     bool
	why     string  // why it runs
	key     Verdict // its key now
	verdict Verdict // its recorded passing run, when reused
}

// planLive decides whether s runs live on Spark version: always when
// every is set (-update, SPARKDX_LIVE=all), else when it has no recorded
// passing run of today's key or no committed log.
func planLive(t *testing.T, root string, s *Scenario, version string, every bool) livePlan {
	key, err := s.LiveKey(root, version)
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := s.Verdicts()
	if err != nil {
		t.Fatal(err)
	}
	v, ok := verdicts[version]
	_, logged := s.Logs()[version]
	switch {
	case every:
		return livePlan{run: true, why: "-update or SPARKDX_LIVE=all", key: key}
	case !ok:
		return livePlan{run: true, why: "no recorded verdict in " + VerdictFile, key: key}
	case !logged:
		return livePlan{run: true, why: "no committed log", key: key}
	case v.Key != key.Key:
		return livePlan{run: true, why: "changed since its recorded run: " + strings.Join(v.Changed(key), ", "), key: key}
	}
	return livePlan{key: key, verdict: v}
}

// reuse checks the committed log of a scenario whose recorded live run
// has today's key.
func reuse(t *testing.T, s *Scenario, version string, p livePlan) {
	t.Logf("live run reused: key %.12s passed on %s (%s; SPARKDX_LIVE=all runs it again); checking the committed log",
		p.key.Key, p.verdict.Passed.Format(time.DateOnly), p.verdict.Log)
	d, err := Diagnose(context.Background(), s.Logs()[version])
	if err != nil {
		t.Fatal(err)
	}
	report(t, s, d)
}

// sharesCluster: a scenario that adds a Worker late or kills an executor
// changes its cluster and starts its own.
func sharesCluster(s *Scenario) bool {
	return s.LateWorkerSeconds == 0 && s.KillExecutorAtMarks == 0 && s.Throttle == nil
}

func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join(root, "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func startCluster(t *testing.T, line sparktest.SparkLine, s *Scenario) *sparktest.Cluster {
	return sparktest.StartCluster(t, line, sparktest.ClusterOptions{
		Workers: s.Cluster.Workers, CoresPerWorker: s.Cluster.CoresPerWorker, MemoryPerWorker: s.Cluster.MemoryPerWorker})
}

func live(t *testing.T, line sparktest.SparkLine, c *sparktest.Cluster, s *Scenario, key Verdict) {
	logDir := t.TempDir()
	conf := sparktest.DefaultConf(t, logDir)
	stopThrottle := func() int { return 0 }
	if s.Throttle != nil {
		marks := t.TempDir()
		conf[ThrottleMarksConf] = marks
		stopThrottle = startThrottle(c, s.Throttle, marks)
	}
	path, err := s.Run(context.Background(), c, conf, logDir)
	cycles := stopThrottle()
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Logs())
	}
	if s.Throttle != nil && cycles == 0 {
		t.Fatalf("%s: the executor on %s was never throttled", s.Name, s.Throttle.Host)
	}
	d, err := Diagnose(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	report(t, s, d)
	if t.Failed() {
		return
	}
	if *update {
		keep(t, s, line.Version, path)
	}
	key.Passed, key.Log = time.Now().UTC().Truncate(time.Second), filepath.Base(path)
	if err := s.Record(line.Version, key); err != nil {
		t.Fatal(err)
	}
	t.Logf("passed live; verdict recorded in %s (commit it)", filepath.Join(s.Dir, VerdictFile))
}

// keep replaces the committed log of line (and the agent's samples) by the
// one at path.
func keep(t *testing.T, s *Scenario, version, path string) {
	dst := s.LogDir(version)
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, filepath.Base(path)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.Agent {
		return
	}
	b, err = os.ReadFile(AgentFile(path))
	if err != nil {
		t.Fatal(err)
	}
	out := AgentFile(filepath.Join(dst, filepath.Base(path)))
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
