package sparktest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// SparkLine is one installed Apache Spark line: a virtualenv holding
// PyPI's pyspark, whose package directory is a complete SPARK_HOME.
type SparkLine struct {
	Version string // e.g. "3.5.9"
	Python  string // the virtualenv's python, with pyspark importable
	Home    string // SPARK_HOME: the pyspark package directory (bin/, jars/)
}

// Cache returns the directory .ci/install keeps installed tools in:
// $SPARKDX_CACHE, or ~/.cache/sparkdx.
func Cache() string {
	if dir := os.Getenv("SPARKDX_CACHE"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "sparkdx-cache")
	}
	return filepath.Join(home, ".cache", "sparkdx")
}

// SparkVersions returns the Spark lines the repository pins
// (.ci/spark/<version>.txt), oldest first, whether installed or not.
func SparkVersions(t testing.TB) []string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		Missing(t, "module root: "+err.Error())
	}
	reqs, _ := filepath.Glob(filepath.Join(root, ".ci", "spark", "*.txt"))
	if len(reqs) == 0 {
		// exporter/deltaexporter is a module of its own inside the repository.
		reqs, _ = filepath.Glob(filepath.Join(root, "..", "..", ".ci", "spark", "*.txt"))
	}
	if len(reqs) == 0 {
		Missing(t, "the Spark pins .ci/spark/*.txt")
	}
	var versions []string
	for _, req := range reqs {
		versions = append(versions, strings.TrimSuffix(filepath.Base(req), ".txt"))
	}
	sort.Slice(versions, func(i, j int) bool { return versionLess(versions[i], versions[j]) })
	return versions
}

// SparkLines returns every Spark line the repository pins, oldest first,
// each installed by .ci/install. A line that is not installed fails the
// test in CI and skips it elsewhere; a live test (Live).
func SparkLines(t testing.TB) []SparkLine {
	t.Helper()
	Live(t)
	var lines []SparkLine
	for _, v := range SparkVersions(t) {
		lines = append(lines, SparkLineOf(t, v))
	}
	return lines
}

// SparkLineOf returns the installed Spark line of version (see SparkLines).
func SparkLineOf(t testing.TB, version string) SparkLine {
	t.Helper()
	Live(t)
	venv := filepath.Join(Cache(), "spark-"+version)
	homes, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages", "pyspark"))
	if len(homes) != 1 {
		Missing(t, "Spark "+version+" (pyspark in "+venv+"; run .ci/install)")
	}
	l := SparkLine{Version: version, Python: filepath.Join(venv, "bin", "python"), Home: homes[0]}
	if _, err := os.Stat(filepath.Join(l.Home, "bin", "spark-class")); err != nil {
		Missing(t, "Spark "+version+": "+err.Error())
	}
	return l
}

// versionLess orders dotted versions numerically ("3.5.9" < "4.3.0" < "4.10.0").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		if len(as[i]) != len(bs[i]) {
			return len(as[i]) < len(bs[i])
		}
		return as[i] < bs[i]
	}
	return len(as) < len(bs)
}

// PythonEnv returns the python of the virtualenv .ci/install builds from
// .ci/python/<name>.txt (e.g. "delta-rs"); the test fails in CI and skips
// elsewhere when it is missing.
func PythonEnv(t testing.TB, name string) string {
	t.Helper()
	Live(t)
	py := filepath.Join(Cache(), "py-"+name, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		Missing(t, "python environment "+name+" (.ci/install builds it from .ci/python/"+name+".txt)")
	}
	return py
}

// Jars returns the Spark line and the jars .ci/jars/<name>.txt pins (its
// "spark VERSION" line and group:artifact:version lines), which .ci/install
// fetches from Maven Central into the cache; the test fails in CI and skips
// elsewhere when one is missing.
func Jars(t testing.TB, name string) (SparkLine, []string) {
	t.Helper()
	Live(t)
	root, err := moduleRoot()
	if err != nil {
		Missing(t, "module root: "+err.Error())
	}
	b, err := os.ReadFile(filepath.Join(root, ".ci", "jars", name+".txt"))
	if os.IsNotExist(err) {
		// exporter/deltaexporter is a module of its own inside the repository.
		b, err = os.ReadFile(filepath.Join(root, "..", "..", ".ci", "jars", name+".txt"))
	}
	if err != nil {
		Missing(t, "the jar pins .ci/jars/"+name+".txt: "+err.Error())
	}
	var version string
	var jars []string
	for _, ln := range strings.Split(string(b), "\n") {
		f := strings.Fields(ln)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "spark" && len(f) == 2:
			version = f[1]
		default:
			c := strings.Split(f[0], ":")
			if len(c) != 3 {
				t.Fatalf(".ci/jars/%s.txt: %q is not group:artifact:version", name, ln)
			}
			jar := filepath.Join(Cache(), "jars", c[1]+"-"+c[2]+".jar")
			if _, err := os.Stat(jar); err != nil {
				Missing(t, "jar "+f[0]+" ("+jar+"; run .ci/install)")
			}
			jars = append(jars, jar)
		}
	}
	if version == "" {
		t.Fatalf(".ci/jars/%s.txt names no Spark line (spark VERSION)", name)
	}
	return SparkLineOf(t, version), jars
}

// StartPySpark runs a PySpark program the way a user does — `python
// job.py` with line's pyspark, which starts its driver JVM as a child —
// and waits for it to print "ready <application id>"; the program then
// waits on stdin, which is closed when the test ends (StartJVM).
func StartPySpark(t testing.TB, line SparkLine, program string) (job *JVM, appID string) {
	t.Helper()
	Live(t)
	path := filepath.Join(t.TempDir(), "job.py")
	if err := os.WriteFile(path, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	job = StartJVM(t, []string{line.Python, path}, "SPARK_HOME="+line.Home, "PYSPARK_PYTHON="+line.Python)
	for job.Lines.Scan() {
		if id, ok := strings.CutPrefix(job.Lines.Text(), "ready "); ok {
			return job, id
		}
	}
	t.Fatalf("%s (pid %d) exited before printing its application id", path, job.PID)
	return nil, ""
}
