package agent

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtureAgent returns an agent reading the fake node tree testdata/<name>
// (proc/ and sys/fs/cgroup/).
func fixtureAgent(t testing.TB, root string, cfg Config) *Agent {
	t.Helper()
	cfg.ProcRoot = filepath.Join(root, "proc")
	cfg.CgroupRoot = filepath.Join(root, "sys", "fs", "cgroup")
	if cfg.Host == "" {
		cfg.Host = filepath.Base(root)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// copyFixture copies a fixture tree to a temporary directory a test may
// change.
func copyFixture(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join("testdata", name)
	dst := filepath.Join(t.TempDir(), name)
	// Symbolic links (hsperfdata files shared with internal/jvm/hsperf)
	// are copied as the files they point to.
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func sample(t *testing.T, a *Agent) *Snapshot {
	t.Helper()
	s, err := a.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func byPID(s *Snapshot) map[int]Process {
	m := map[int]Process{}
	for _, p := range s.Processes {
		m[p.PID] = p
	}
	return m
}

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from output (go test -update rewrites it); got:\n%s", path, got)
	}
}

func TestSnapshotJSONGolden(t *testing.T) {
	for _, node := range []string{"node1", "node2"} {
		t.Run(node, func(t *testing.T) {
			s := sample(t, fixtureAgent(t, filepath.Join("testdata", node), Config{}))
			s.Time = 0
			var b bytes.Buffer
			if err := s.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, node+".json", b.Bytes())
		})
	}
}

// skipOrFail reports a missing prerequisite the way sparktest does: a
// failure under CI=true, a skip elsewhere.
func skipOrFail(t *testing.T, what string) {
	t.Helper()
	sparktest.Missing(t, what)
}
