package sparktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Binary returns the sparkdx binary the tests run as a program: $SPARKDX_BIN
// when set — `make test` builds it once (`make build`: static, with the
// Dockerfile's flags) and every package's tests share it —, else one built
// now from this checkout into the test's temporary directory. A live test
// (Live).
func Binary(t testing.TB) string {
	t.Helper()
	Live(t)
	if bin := os.Getenv("SPARKDX_BIN"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("SPARKDX_BIN: %v (make build writes it)", err)
		}
		return bin
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		Missing(t, "go tool to build sparkdx")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// exporter/deltaexporter is a module of its own inside the repository.
	for _, dir := range []string{root, filepath.Join(root, "..", "..")} {
		if _, err := os.Stat(filepath.Join(dir, "cmd", "sparkdx")); err == nil {
			root = dir
			break
		}
	}
	bin := filepath.Join(t.TempDir(), "sparkdx")
	if out, err := exec.Command(goTool, "build", "-C", root, "-o", bin, "./cmd/sparkdx").CombinedOutput(); err != nil {
		t.Fatalf("go build sparkdx: %v\n%s", err, out)
	}
	return bin
}
