package tune_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/test/scenario"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
	"github.com/sparkdx/sparkdx/internal/tune"
)

var update = flag.Bool("update", false, "record the live tuning proofs and rewrite docs/tuning.md's table")

// The documented tolerances (docs/tuning.md). A recommendation must not
// slow the run: the re-run's job time may exceed the first run's by the
// timing noise of one run on a shared machine at most. The prediction
// must come within proofTolerance of the first run's job time, or
// proofMinToleranceMs, of the measured change. A plan that predicts a
// memory saving must see the executors' memory GB-hours fall by it,
// within memoryTolerance of it: the saving is the heap given back over
// the executors' lifetimes, and those lifetimes vary with the run time
// (by its noise) between the two runs.
const (
	slowerNoise         = 0.05
	proofTolerance      = 0.15
	proofMinToleranceMs = 2000
	memoryTolerance     = 0.25
)

// tuningScenario is testdata/tuning/<name>/scenario.json.
type tuningScenario struct {
	Description string `json:"description"`
	Cluster     struct {
		Workers, CoresPerWorker int
		MemoryPerWorker         string
	} `json:"cluster"`
	Conf   map[string]string `json:"conf"`
	Expect string            `json:"expect"` // the property tune must change
	// Runs is how often each side runs (at least once): each side's
	// fastest run counts.
	Runs int `json:"runs"`
}

// Proof is one scenario's run, tune and re-run on one Spark line.
type Proof struct {
	Key         string            `json:"key"`
	Inputs      map[string]string `json:"inputs"`
	Changes     map[string]string `json:"changes"`
	BeforeJobMs int64             `json:"beforeJobMs"` // app duration less the driver's time outside jobs
	AfterJobMs  int64             `json:"afterJobMs"`
	PredictedMs int64             `json:"predictedMs"` // the plan's predicted wall change
	// BeforeGBh and AfterGBh are the executors' memory GB-hours of the two
	// runs (cost.Of: each container's memory over its lifetime);
	// PredictedGBh the plan's predicted memory change (0: none).
	BeforeGBh    float64   `json:"beforeExecutorGbHours"`
	AfterGBh     float64   `json:"afterExecutorGbHours"`
	PredictedGBh float64   `json:"predictedGbHours"`
	Passed       time.Time `json:"passed"`
}

func (p Proof) actualMs() int64 { return p.AfterJobMs - p.BeforeJobMs }

// check says what is wrong with a proof, "" when it holds.
func (p Proof) check(expect string) string {
	var bad []string
	if _, ok := p.Changes[expect]; !ok {
		bad = append(bad, fmt.Sprintf("tune did not change %s (changes: %v)", expect, p.Changes))
	}
	if float64(p.AfterJobMs) > float64(p.BeforeJobMs)*(1+slowerNoise) {
		bad = append(bad, fmt.Sprintf("the recommendation slowed the jobs from %d to %d ms", p.BeforeJobMs, p.AfterJobMs))
	}
	tol := max(int64(proofTolerance*float64(p.BeforeJobMs)), proofMinToleranceMs)
	if miss := p.PredictedMs - p.actualMs(); miss > tol || -miss > tol {
		bad = append(bad, fmt.Sprintf("predicted %+d ms, measured %+d ms: off by more than %d ms", p.PredictedMs, p.actualMs(), tol))
	}
	if p.PredictedGBh != 0 {
		got := p.AfterGBh - p.BeforeGBh
		if math.Abs(got-p.PredictedGBh) > memoryTolerance*math.Abs(p.PredictedGBh) {
			bad = append(bad, fmt.Sprintf("predicted %+.5f GB-h, measured %+.5f GB-h: off by more than %.0f %%", p.PredictedGBh, got, 100*memoryTolerance))
		}
	}
	return strings.Join(bad, "; ")
}

func root(t *testing.T) string {
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// proofKey hashes what decides a live proof: the scenario's files, the
// Spark pin, the cluster harness and tune's own code.
func proofKey(t *testing.T, name, version string) Proof {
	files := []string{".ci/spark/" + version + ".txt", "internal/test/sparktest/cluster.go", "internal/test/sparktest/spark.go",
		"internal/tune/proof_test.go", "testdata/tuning/" + name + "/workload.py", "testdata/tuning/" + name + "/scenario.json"}
	code, _ := filepath.Glob(filepath.Join(root(t), "internal", "tune", "*.go"))
	for _, f := range code {
		if !strings.HasSuffix(f, "_test.go") {
			files = append(files, "internal/tune/"+filepath.Base(f))
		}
	}
	p := Proof{Inputs: map[string]string{}}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root(t), filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		p.Inputs[f] = hex.EncodeToString(sum[:])[:16]
	}
	h := sha256.New()
	for _, f := range slices.Sorted(maps.Keys(p.Inputs)) {
		fmt.Fprintf(h, "%s %s\n", f, p.Inputs[f])
	}
	p.Key = hex.EncodeToString(h.Sum(nil))
	return p
}

func readProofs(t *testing.T, dir string) map[string]Proof {
	out := map[string]Proof{}
	b, err := os.ReadFile(filepath.Join(dir, "proof.json"))
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s/proof.json: %v", dir, err)
	}
	return out
}

// TestTuningOnRealSpark runs each tuning scenario on a real standalone
// cluster, runs tune on its log, re-runs it with the recommended
// configuration and checks the change against the prediction. A proof
// recorded (proof.json) for the same inputs is reused and re-checked: CI
// starts no Spark for it. Without one the scenario runs live only with
// SPARKDX_TUNING_PROOF=1.
func TestTuningOnRealSpark(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(root(t), "testdata", "tuning", "*", "scenario.json"))
	if len(dirs) == 0 {
		t.Fatal("no tuning scenarios under testdata/tuning")
	}
	rows := map[string]map[string]Proof{}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		name := filepath.Base(dir)
		var sc tuningScenario
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &sc)
		}
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		proofs := readProofs(t, dir)
		rows[name] = proofs
		for _, version := range []string{"3.5.9", "4.3.0"} {
			t.Run(name+"/"+version, func(t *testing.T) {
				want := proofKey(t, name, version)
				if p, ok := proofs[version]; ok && p.Key == want.Key && !*update {
					if bad := p.check(sc.Expect); bad != "" {
						t.Errorf("recorded proof: %s", bad)
					}
					t.Logf("reused the proof of %s: predicted %+d ms, measured %+d ms", p.Passed.Format(time.DateOnly), p.PredictedMs, p.actualMs())
					return
				}
				// Not yet recorded for these inputs: the live runs take a few
				// minutes on an idle machine and could not finish on the
				// loaded one the harness was written on (docs/tuning.md), so
				// they run when asked for until a proof is recorded.
				if os.Getenv("SPARKDX_TUNING_PROOF") == "" {
					t.Skipf("no proof recorded for these inputs; SPARKDX_TUNING_PROOF=1 runs %s on Spark %s live", name, version)
				}
				p := prove(t, sparktest.SparkLineOf(t, version), dir, sc)
				p.Key, p.Inputs = want.Key, want.Inputs
				t.Logf("%s on %s: jobs %d → %d ms (%+d), predicted %+d; changes %v", name, version,
					p.BeforeJobMs, p.AfterJobMs, p.actualMs(), p.PredictedMs, p.Changes)
				if bad := p.check(sc.Expect); bad != "" {
					t.Fatal(bad)
				}
				proofs[version] = p
				if *update {
					writeJSON(t, filepath.Join(dir, "proof.json"), proofs)
				}
			})
		}
	}
	recorded := 0
	for _, ps := range rows {
		recorded += len(ps)
	}
	if *update && recorded > 0 {
		writeTable(t, rows)
	}
}

// prove runs the scenario, tunes it and re-runs it with the plan.
func prove(t *testing.T, line sparktest.SparkLine, dir string, sc tuningScenario) Proof {
	c := sparktest.StartCluster(t, line, sparktest.ClusterOptions{Workers: sc.Cluster.Workers,
		CoresPerWorker: sc.Cluster.CoresPerWorker, MemoryPerWorker: sc.Cluster.MemoryPerWorker})
	defer c.Stop()
	run := func(extra map[string]string) *scenario.Diagnosis {
		logDir := t.TempDir()
		conf := sparktest.DefaultConf(t, logDir)
		maps.Copy(conf, sc.Conf)
		maps.Copy(conf, extra)
		res, err := c.Submit(context.Background(), sparktest.Submission{Program: filepath.Join(dir, "workload.py"), Conf: conf, EventLogDir: logDir})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("exit %d, %v\n%s\n%s", res.ExitCode, err, res.Output, c.Logs())
		}
		logs, _ := filepath.Glob(filepath.Join(logDir, "*"))
		if len(logs) != 1 {
			t.Fatalf("%s holds %d logs, want 1", logDir, len(logs))
		}
		if keep := os.Getenv("SPARKDX_TUNING_KEEP"); keep != "" { // to look into a proof that failed
			if b, err := os.ReadFile(logs[0]); err == nil {
				_ = os.WriteFile(filepath.Join(keep, filepath.Base(logs[0])), b, 0o644)
			}
		}
		d, err := scenario.Diagnose(context.Background(), logs[0])
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	jobMs := func(d *scenario.Diagnosis) int64 { return d.Result.DurationMs - d.Result.CriticalPath.DriverMs }
	before := run(nil)
	plan := tune.Recommend(before.Attempt, before.Result, before.Findings)
	for _, c := range plan.Changes {
		t.Logf("change %s %s → %s: %s; predicted %+d ms wall, %+.4f GB-h (%s)", c.Property, c.From, c.To, c.Why, c.Effect.WallMs, c.Effect.MemoryGBHours, c.Effect.Basis)
	}
	after := run(plan.Conf())
	// More runs, alternating, for a change whose effect is within the
	// timing noise: each side's fastest run is the one least slowed by
	// the machine's other work.
	for i := 1; i < sc.Runs; i++ {
		b, a := run(nil), run(plan.Conf())
		t.Logf("run %d: jobs %d → %d ms", i+1, jobMs(b), jobMs(a))
		if jobMs(b) < jobMs(before) {
			before = b
		}
		if jobMs(a) < jobMs(after) {
			after = a
		}
	}
	gbh := func(d *scenario.Diagnosis) float64 { return cost.Of(d.Attempt, d.Result).Executors.MemoryGBHours }
	return Proof{Changes: plan.Conf(), BeforeJobMs: jobMs(before), AfterJobMs: jobMs(after),
		PredictedMs: plan.Predicted.WallMs, BeforeGBh: gbh(before), AfterGBh: gbh(after), PredictedGBh: plan.Predicted.MemoryGBHours,
		Passed: time.Now().UTC().Truncate(time.Second)}
}

func writeJSON(t *testing.T, path string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTable rewrites the table between the markers of docs/tuning.md.
func writeTable(t *testing.T, rows map[string]map[string]Proof) {
	path := filepath.Join(root(t), "docs", "tuning.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- proof table: go test ./internal/tune -run TestTuningOnRealSpark -update -->", "<!-- end of proof table -->"
	i, j := strings.Index(string(b), begin), strings.Index(string(b), end)
	if i < 0 || j < i {
		t.Fatalf("%s: no proof table markers", path)
	}
	var tb strings.Builder
	tb.WriteString(begin + "\n| scenario | Spark | changes | job time before → after | measured | predicted | executor memory GB-h before → after (predicted) | recorded |\n|---|---|---|---|---|---|---|---|\n")
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		for _, v := range slices.Sorted(maps.Keys(rows[name])) {
			p := rows[name][v]
			var cs []string
			for _, k := range slices.Sorted(maps.Keys(p.Changes)) {
				cs = append(cs, "`"+k+"="+p.Changes[k]+"`")
			}
			mem := fmt.Sprintf("%.4f → %.4f (none)", p.BeforeGBh, p.AfterGBh)
			if p.PredictedGBh != 0 {
				mem = fmt.Sprintf("%.4f → %.4f: %+.4f (%+.4f)", p.BeforeGBh, p.AfterGBh, p.AfterGBh-p.BeforeGBh, p.PredictedGBh)
			}
			fmt.Fprintf(&tb, "| %s | %s | %s | %.1f s → %.1f s | %+.1f s (%+.0f %%) | %+.1f s | %s | %s |\n", name, v, strings.Join(cs, " "),
				float64(p.BeforeJobMs)/1000, float64(p.AfterJobMs)/1000, float64(p.actualMs())/1000,
				100*float64(p.actualMs())/float64(max(p.BeforeJobMs, 1)), float64(p.PredictedMs)/1000, mem, p.Passed.Format(time.DateOnly))
		}
	}
	out := string(b[:i]) + tb.String() + string(b[j:])
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProofCheck judges made-up proofs the way TestTuningOnRealSpark
// judges recorded ones.
func TestProofCheck(t *testing.T) {
	const key = "spark.executor.memory"
	base := Proof{Changes: map[string]string{key: "768m"}, BeforeJobMs: 10_000, AfterJobMs: 10_000}
	with := func(f func(*Proof)) Proof { p := base; f(&p); return p }
	for _, c := range []struct {
		name string
		p    Proof
		want string // a part of the complaint; "" when it holds
	}{
		{"no time effect predicted or seen", base, ""},
		{"expected property missing", with(func(p *Proof) { p.Changes = map[string]string{} }), "did not change"},
		{"within the noise", with(func(p *Proof) { p.AfterJobMs = 10_400 }), ""},
		{"slower beyond the noise", with(func(p *Proof) { p.AfterJobMs = 10_600 }), "slowed"},
		{"prediction within 2 s", with(func(p *Proof) { p.AfterJobMs, p.PredictedMs = 5_000, -3_500 }), ""},
		{"prediction misses", with(func(p *Proof) { p.AfterJobMs, p.PredictedMs = 5_000, -2_500 }), "off by more than 2000 ms"},
		{"memory saved as predicted", with(func(p *Proof) { p.BeforeGBh, p.AfterGBh, p.PredictedGBh = 0.02, 0.008, -0.011 }), ""},
		{"memory saved beyond 25 %", with(func(p *Proof) { p.BeforeGBh, p.AfterGBh, p.PredictedGBh = 0.02, 0.001, -0.011 }), "GB-h"},
		{"memory not saved", with(func(p *Proof) { p.BeforeGBh, p.AfterGBh, p.PredictedGBh = 0.02, 0.02, -0.011 }), "GB-h"},
		{"memory unpredicted is not judged", with(func(p *Proof) { p.BeforeGBh, p.AfterGBh = 0.02, 0.03 }), ""},
	} {
		got := c.p.check(key)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
