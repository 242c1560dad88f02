package sparktest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// JDK returns the home of the machine's JDK of a feature release ("17": the
// Debian OpenJDK the JVM and Spark tests run on; "25": the Temurin JDK the
// machine image installs beside it), on any architecture, after checking
// it has java, javac, jcmd and jstat. A missing JDK fails the test in CI.
func JDK(t testing.TB, release string) string {
	t.Helper()
	Live(t)
	var homes []string
	for _, pattern := range []string{"/usr/lib/jvm/java-" + release + "-openjdk-*", "/usr/lib/jvm/temurin-" + release + "-jdk*"} {
		m, _ := filepath.Glob(pattern)
		homes = append(homes, m...)
	}
	slices.Sort(homes)
	for _, home := range homes {
		ok := true
		for _, tool := range []string{"java", "javac", "jcmd", "jstat"} {
			if _, err := os.Stat(filepath.Join(home, "bin", tool)); err != nil {
				ok = false
			}
		}
		if ok {
			return home
		}
	}
	Missing(t, "JDK "+release+" with java, javac, jcmd and jstat under /usr/lib/jvm")
	return ""
}
