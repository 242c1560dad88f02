package sparktest

import (
	"os/exec"
	"strings"
	"testing"
)

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"3.5.9", "4.3.0", true},
		{"4.3.0", "3.5.9", false},
		{"4.3.0", "4.10.0", true},
		{"4.3", "4.3.0", true},
		{"4.3.0", "4.3.0", false},
	} {
		if got := versionLess(c.a, c.b); got != c.want {
			t.Errorf("versionLess(%q, %q): got %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestSparkLinesInstalled checks that each pinned line's virtualenv imports
// the pinned pyspark.
func TestSparkLinesInstalled(t *testing.T) {
	for _, l := range SparkLines(t) {
		out, err := exec.Command(l.Python, "-c", "import pyspark; print(pyspark.__version__)").CombinedOutput()
		if err != nil {
			t.Fatalf("Spark %s: %v\n%s", l.Version, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != l.Version {
			t.Errorf("Spark %s: pyspark says %q", l.Version, got)
		}
	}
}
