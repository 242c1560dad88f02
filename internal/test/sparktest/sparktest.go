// Package sparktest locates the shared real-Spark test data and the real
// programs (JVMs, Prometheus, Chromium, ...) that tests run against. A test
// that needs something missing fails when CI=true and skips elsewhere; a
// test that starts a real program skips under -short (Live).
package sparktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir returns the shared test data directory: $SPARKDX_TESTDATA, or
// ../shared/testdata next to the module root.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SPARKDX_TESTDATA")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			Missing(t, "module root: "+err.Error())
		}
		dir = filepath.Join(root, "..", "shared", "testdata")
	}
	if _, err := os.Stat(filepath.Join(dir, "spark")); err != nil {
		Missing(t, "shared Spark test data (set SPARKDX_TESTDATA): "+err.Error())
	}
	return dir
}

// Spark returns the directory holding the real Spark event logs.
func Spark(t testing.TB) string {
	t.Helper()
	return filepath.Join(Dir(t), "spark")
}

// Path joins elements under the Spark test data directory.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Spark(t)}, elem...)...)
}

// Live marks a test that starts a real program (Spark, a JVM, Prometheus,
// MinIO, Chromium, the collector, a build of the sparkdx binary): it skips
// under -short, so `make check` (go test -short) runs every test that
// starts no outside program in a couple of minutes, and `make test` runs
// them all. Every helper here that finds or starts such a program calls it.
func Live(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("live: starts a real program; skipped under -short (make check), run by make test")
	}
}

// Program returns the path of an installed program — on PATH, or in the
// cache's bin/ where .ci/install builds minio, helm and the collector —, or
// fails (CI) / skips. A live test (Live).
func Program(t testing.TB, name string) string {
	t.Helper()
	Live(t)
	p, err := exec.LookPath(name)
	if err != nil {
		p = filepath.Join(Cache(), "bin", name)
		if _, serr := os.Stat(p); serr != nil {
			Missing(t, "program "+name+" (not on PATH nor in "+filepath.Dir(p)+"; see .ci/install)")
		}
	}
	return p
}

// Missing fails the test in CI and skips it elsewhere, saying what is missing.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("missing in CI: %s", what)
	}
	t.Skipf("skipping: missing %s", what)
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// CopyLogs copies the shared event logs named (files under spark-events)
// into dir, under their own names.
func CopyLogs(t testing.TB, dir string, names ...string) {
	t.Helper()
	for _, name := range names {
		b, err := os.ReadFile(Path(t, "spark-events", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
