package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// secretsLog writes a copy of a real Spark log with secrets put where
// users put them: cloud keys and a metastore URL in the Hadoop properties,
// a password on the driver's command line, a connection string in every
// job's description.
func secretsLog(t *testing.T) (dir, appID string) {
	t.Helper()
	src, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1430917381534"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		// object is the event's object under key, made when absent.
		object := func(key string) map[string]any {
			m, _ := ev[key].(map[string]any)
			if m == nil {
				m = map[string]any{}
				ev[key] = m
			}
			return m
		}
		switch ev["Event"] {
		case "SparkListenerEnvironmentUpdate":
			hadoop := object("Hadoop Properties")
			hadoop["fs.azure.account.key.acct.blob.core.windows.net"] = "AZUREKEY"
			hadoop["javax.jdo.option.ConnectionURL"] = "jdbc:mysql://hive:HIVEPASS@db/metastore"
			object("Spark Properties")["spark.driver.extraJavaOptions"] = "-Ddb.password=DRIVERPASS"
		case "SparkListenerJobStart":
			object("Properties")["spark.job.description"] = "nightly load from jdbc:postgresql://etl:JOBPASS@db/x?token=JOBTOKEN"
		}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "local-1430917381534"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, "local-1430917381534"
}

// TestNoSecretLeaves: every output of analyze and api leaves the secrets
// out (docs/redaction.md).
func TestNoSecretLeaves(t *testing.T) {
	dir, app := secretsLog(t)
	log := filepath.Join(dir, app)
	secrets := []string{"AZUREKEY", "HIVEPASS", "DRIVERPASS", "JOBPASS", "JOBTOKEN"}
	for _, args := range [][]string{
		{"analyze", log},
		{"analyze", "--format", "json", log},
		{"analyze", "--format", "html", log},
		{"api", "--log-dir", dir, "applications/" + app + "/environment"},
		{"api", "--log-dir", dir, "applications/" + app + "/jobs"},
		{"api", "--log-dir", dir, "applications/" + app + "/stages"},
	} {
		code, out, errs := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%v: %s is in the output", args, s)
			}
		}
		if args[0] == "api" && strings.HasSuffix(args[len(args)-1], "/jobs") && !strings.Contains(out, "nightly load from jdbc:postgresql://etl:") {
			t.Errorf("%v: the job description is gone, want it kept with its secrets redacted:\n%.400s", args, out)
		}
	}
}
