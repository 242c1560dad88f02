package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// VerdictFile is the name, in a scenario's directory, of the file that
// records its passing live runs: one Verdict per Spark line, committed beside
// the logs so that a machine with empty caches (CI) reuses them.
const VerdictFile = "live.json"

// harness lists the files (relative to the repository root) whose code
// decides what a live run does on every scenario: how the workload is
// submitted and sampled, and how the cluster is started. The expectations'
// code is not in it: the committed logs are checked with today's code on
// every run.
func harness() []string {
	return []string{"internal/test/scenario/run.go", "internal/test/sparktest/cluster.go", "internal/test/sparktest/spark.go"}
}

// Verdict is a passing live run of a scenario on one Spark line: the key
// of what it ran (LiveKey) and when.
type Verdict struct {
	Key string `json:"key"`
	// Inputs are the files the key covers and the start of each one's
	// SHA-256, so a changed key says which file changed.
	Inputs map[string]string `json:"inputs"`
	Passed time.Time         `json:"passed"`
	Log    string            `json:"log"` // the event log the run wrote (base name)
	// Cores is the recording machine's CPU count, where the check of a
	// committed log depends on it (the what-if's runs).
	Cores int `json:"cores,omitempty"`
}

// LiveKey returns what decides a live run of s on Spark version: the
// content of every file of the scenario (workload.py, scenario.json and
// any other; not its logs and verdicts), the Spark pin
// .ci/spark/<version>.txt, the harness files and, for a scenario the agent
// samples, the agent's code. root is the repository root.
func (s *Scenario) LiveKey(root, version string) (Verdict, error) {
	files := []string{filepath.ToSlash(filepath.Join(".ci", "spark", version+".txt"))}
	files = append(files, harness()...)
	dir, err := filepath.Abs(s.Dir)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return Verdict{}, fmt.Errorf("scenario: %s: %w", s.Name, err)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return Verdict{}, fmt.Errorf("scenario: %s: %w", s.Name, err)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && strings.HasPrefix(d.Name(), "spark-"):
			return fs.SkipDir
		case d.IsDir() || d.Name() == VerdictFile:
			return nil
		}
		r, _ := filepath.Rel(dir, path)
		files = append(files, filepath.ToSlash(filepath.Join(rel, r)))
		return nil
	})
	if err != nil {
		return Verdict{}, fmt.Errorf("scenario: %s: %w", s.Name, err)
	}
	if s.Throttle != nil {
		files = append(files, "internal/test/scenario/throttle_test.go")
	}
	if s.Agent {
		code, _ := filepath.Glob(filepath.Join(root, "internal", "agent", "*.go"))
		for _, f := range code {
			if !strings.HasSuffix(f, "_test.go") {
				r, _ := filepath.Rel(root, f)
				files = append(files, filepath.ToSlash(r))
			}
		}
	}
	v, err := keyOf(root, files)
	if err != nil {
		return Verdict{}, fmt.Errorf("scenario: %s: key: %w", s.Name, err)
	}
	return v, nil
}

// keyOf returns the key of files (relative to the repository root, slash
// separated): the start of each one's SHA-256, and one SHA-256 over the
// sorted names and sums.
func keyOf(root string, files []string) (Verdict, error) {
	v := Verdict{Inputs: map[string]string{}}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return Verdict{}, err
		}
		sum := sha256.Sum256(b)
		v.Inputs[f] = hex.EncodeToString(sum[:])[:16]
	}
	h := sha256.New()
	for _, f := range slices.Sorted(maps.Keys(v.Inputs)) {
		fmt.Fprintf(h, "%s %s\n", f, v.Inputs[f])
	}
	v.Key = hex.EncodeToString(h.Sum(nil))
	return v, nil
}

// Verdicts reads the scenario's recorded live runs, by Spark version; none
// recorded is an empty map.
func (s *Scenario) Verdicts() (map[string]Verdict, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir, VerdictFile))
	if os.IsNotExist(err) {
		return map[string]Verdict{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	out := map[string]Verdict{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("scenario: %s: %w", filepath.Join(s.Dir, VerdictFile), err)
	}
	return out, nil
}

// Record writes v as the scenario's verdict for Spark version, keeping the
// other lines'. Only a passing live run calls it.
func (s *Scenario) Record(version string, v Verdict) error {
	all, err := s.Verdicts()
	if err != nil {
		return err
	}
	all[version] = v
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.Dir, VerdictFile), append(b, '\n'), 0o644)
}

// Changed names the inputs that differ between a recorded verdict and a
// key: added, removed or edited files.
func (v Verdict) Changed(now Verdict) []string {
	var out []string
	for f, sum := range now.Inputs {
		if v.Inputs[f] != sum {
			out = append(out, f)
		}
	}
	for f := range v.Inputs {
		if _, ok := now.Inputs[f]; !ok {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}
