// Package deltaread has other engines read the Delta tables sparkdx writes,
// for tests: delta-rs (the deltalake Python package) and Apache Spark with
// Delta Lake (delta-spark). Each prints what it sees of every table as JSON
// (View), which tests compare with sparkdx's own reading (deltacheck).
package deltaread

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

var (
	//go:embed deltars_read.py
	deltaRSScript []byte
	//go:embed spark_delta_read.py
	sparkScript []byte
	//go:embed spark_sql.py
	sparkSQLScript []byte
)

// View is what a reader sees of one table.
type View struct {
	Version          int64          `json:"version"`
	Protocol         []int          `json:"protocol"` // min reader, min writer
	PartitionColumns []string       `json:"partitionColumns"`
	Columns          []string       `json:"columns"`
	Files            int            `json:"files"` // live data files
	Rows             int64          `json:"rows"`
	Apps             []string       `json:"apps"`        // distinct app_id values, sorted
	ValueSum         float64        `json:"valueSum"`    // samples: Σ value
	FilesByDate      map[string]int `json:"filesByDate"` // samples: the files a date filter keeps
	RowsThen         int64          `json:"rowsThen"`    // samples: rows at the version asked for
}

// Reader is one engine reading tables.
type Reader struct {
	Name string // "delta-rs", "Spark 3.5.9 with Delta Lake"
	t    testing.TB
	run  func(script string, args ...string) ([]byte, error)
	file string // the script, written out
}

// Read reads the tables names under root (a directory or an s3:// URL) and
// returns what the engine sees of each; samplesThen ≥ 0 also reads the
// samples table at that version (time travel). A refusal fails the test.
func (r Reader) Read(root string, names []string, samplesThen int64) map[string]View {
	r.t.Helper()
	out, err := r.run(r.file, root, strings.Join(names, ","), fmt.Sprint(samplesThen))
	if err != nil {
		r.t.Fatalf("%s refused the tables under %s: %v", r.Name, root, err)
	}
	var views map[string]View
	if err := json.Unmarshal(out, &views); err != nil {
		r.t.Fatalf("%s output: %v\n%s", r.Name, err, out)
	}
	return views
}

// DeltaRS reads with delta-rs from the virtualenv .ci/python/delta-rs.txt
// pins; storage holds the object store's options (endpoint, keys; nil for
// a directory).
func DeltaRS(t testing.TB, storage map[string]string) Reader {
	py := sparktest.PythonEnv(t, "delta-rs")
	opts, err := json.Marshal(storage)
	if err != nil {
		t.Fatal(err)
	}
	return newReader(t, "delta-rs", "deltars_read.py", deltaRSScript, py, append(os.Environ(), "DELTA_STORAGE_OPTIONS="+string(opts)))
}

// Spark reads with Apache Spark and Delta Lake (the jars
// .ci/jars/delta-spark.txt pins) in a local Spark of the line they are
// built for; storage holds the object store's options as for DeltaRS (nil
// for a directory).
func Spark(t testing.TB, storage map[string]string) Reader {
	line, jars := sparktest.Jars(t, "delta-spark")
	opts, err := json.Marshal(storage)
	if err != nil {
		t.Fatal(err)
	}
	env := append(sparktest.SparkEnv(line, t.TempDir()), "SPARKDX_DELTA_JARS="+strings.Join(jars, ","),
		"DELTA_STORAGE_OPTIONS="+string(opts))
	return newReader(t, "Spark "+line.Version+" with Delta Lake", "spark_delta_read.py", sparkScript, line.Python, env)
}

func newReader(t testing.TB, name, file string, script []byte, python string, env []string) Reader {
	dir := t.TempDir()
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, script, 0o644); err != nil {
		t.Fatal(err)
	}
	return Reader{Name: name, t: t, file: path, run: func(script string, args ...string) ([]byte, error) {
		cmd := exec.Command(python, append([]string{script}, args...)...)
		cmd.Dir = dir // Spark's spark-warehouse stays here
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%w\n%s", err, stderr.String())
		}
		return out, nil
	}}
}

// SparkSQL runs statements in Apache Spark with Delta Lake (as Spark) and
// returns the rows of the last one, timestamps as epoch milliseconds (UTC).
// A failed statement fails the test.
func SparkSQL(t testing.TB, statements ...string) [][]any {
	t.Helper()
	line, jars := sparktest.Jars(t, "delta-spark")
	dir := t.TempDir()
	script := filepath.Join(dir, "spark_sql.py")
	if err := os.WriteFile(script, sparkSQLScript, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(statements)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(line.Python, script)
	cmd.Dir = dir // spark-warehouse and the metastore stay here
	cmd.Env = append(sparktest.SparkEnv(line, dir), "SPARKDX_DELTA_JARS="+strings.Join(jars, ","), "TZ=UTC")
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Spark %s refused the statements: %v\n%s\n%s", line.Version, err, strings.Join(statements, ";\n"), stderr.String())
	}
	var rows [][]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("Spark output: %v\n%s", err, out)
	}
	return rows
}
