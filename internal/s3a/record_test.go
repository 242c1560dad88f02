package s3a_test

import (
	"cmp"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// recordEnv names the variable that makes TestRecordSpark run real Spark
// and rewrite testdata/spark-3.5.9: the fixtures are real, recorded once,
// and the unit tests read them without Spark.
const recordEnv = "SPARKDX_S3A_RECORD"

// committers are the two ways the recorded application commits its
// writes: the S3A magic committer (its _SUCCESS holds the job's
// IOStatistics) and Hadoop's classic FileOutputCommitter, which renames
// and leaves an empty _SUCCESS.
var committers = map[string]map[string]string{
	"magic": {
		"spark.hadoop.fs.s3a.committer.name":          "magic",
		"spark.hadoop.fs.s3a.committer.magic.enabled": "true",
		"spark.sql.sources.commitProtocolClass":       "org.apache.spark.internal.io.cloud.PathOutputCommitProtocol",
		"spark.sql.parquet.output.committer.class":    "org.apache.spark.internal.io.cloud.BindingParquetOutputCommitter",
	},
	"classic": {
		"spark.hadoop.fs.s3a.committer.name": "file",
	},
	// JSON through Spark's default commit protocol, without
	// spark-hadoop-cloud: Hadoop's committer factory for s3a picks the
	// committer that fs.s3a.committer.name names.
	"magic-json": {
		"spark.hadoop.fs.s3a.committer.name":          "magic",
		"spark.hadoop.fs.s3a.committer.magic.enabled": "true",
	},
}

// formats are the formats the cases write (Parquet unless named).
var formats = map[string]string{"magic-json": "json"}

// TestRecordSpark runs testdata/record/write_s3a.py on Spark 3.5.9
// (local[2]) against a real MinIO once per committer and keeps what it
// left: Spark's event log and the _SUCCESS of each output path.
//
//	SPARKDX_S3A_RECORD=1 go test ./internal/s3a -run TestRecordSpark -v -timeout 30m
func TestRecordSpark(t *testing.T) {
	if os.Getenv(recordEnv) == "" {
		t.Skip(recordEnv + " not set: the committed recordings are read as they are")
	}
	for _, pins := range []struct {
		file  string // .ci/jars/<file>.txt
		cases []string
	}{
		{"record/s3a-committer", []string{"magic", "classic", "magic-json"}},
		// Spark 4.3 carries Hadoop 3.5, whose summaries time the
		// store's requests.
		{"record/s3a-committer-4", []string{"magic"}},
	} {
		t.Run(pins.file, func(t *testing.T) {
			line, jars := sparktest.Jars(t, pins.file)
			m := sparktest.StartMinIO(t) // a store per line: the buckets are the cases' names
			for _, name := range pins.cases {
				t.Run(name, func(t *testing.T) { record(t, line, jars, m, name) })
			}
		})
	}
}

func record(t *testing.T, line sparktest.SparkLine, jars []string, m sparktest.MinIO, name string) {
	bucket := name
	c := m.Bucket(t, bucket)
	events := t.TempDir()
	format := cmp.Or(formats[name], "parquet")
	if format != "parquet" { // no spark-hadoop-cloud: Spark's own commit protocol
		jars = slices.DeleteFunc(slices.Clone(jars), func(j string) bool { return strings.Contains(j, "spark-hadoop-cloud") })
	}
	conf := sparktest.DefaultConf(t, events)
	for k, v := range map[string]string{
		"spark.jars":                                   strings.Join(jars, ","),
		"spark.eventLog.compress":                      "true",
		"spark.eventLog.compression.codec":             "zstd",
		"spark.hadoop.fs.s3a.endpoint":                 "http://" + m.Addr,
		"spark.hadoop.fs.s3a.path.style.access":        "true",
		"spark.hadoop.fs.s3a.connection.ssl.enabled":   "false",
		"spark.hadoop.fs.s3a.access.key":               m.AccessKey,
		"spark.hadoop.fs.s3a.secret.key":               m.SecretKey,
		"spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
		"spark.driver.memory":                          "1g",
		"spark.sql.warehouse.dir":                      filepath.Join(t.TempDir(), "warehouse"),
	} {
		conf[k] = v
	}
	for k, v := range committers[name] {
		conf[k] = v
	}
	abs, err := filepath.Abs("testdata/record/write_s3a.py")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	res, err := sparktest.SubmitTo(ctx, line, "local[2]", t.TempDir(), sparktest.Submission{
		Program: abs, Args: []string{bucket, format}, Conf: conf, EventLogDir: events})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("spark-submit: exit %d, %v\n%s", res.ExitCode, err, res.Output)
	}
	dir := filepath.Join("testdata", "spark-"+line.Version, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	logs, err := filepath.Glob(filepath.Join(events, "*"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("event logs in %s: %v, %v; want one", events, logs, err)
	}
	copyFile(t, logs[0], filepath.Join(dir, filepath.Base(logs[0])))
	for _, out := range []string{"many-files", "few-files"} {
		obj, err := c.GetObject(ctx, bucket, out+"/_SUCCESS", minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(obj)
		obj.Close()
		if err != nil {
			t.Fatalf("%s/%s/_SUCCESS: %v", name, out, err)
		}
		writeFile(t, filepath.Join(dir, out, "_SUCCESS"), b)
	}
	t.Logf("recorded %s in %s", name, dir)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, b)
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
