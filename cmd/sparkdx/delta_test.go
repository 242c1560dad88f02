package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
	"github.com/sparkdx/sparkdx/internal/test/deltaread"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestAnalyzeDelta writes two logs twice: each app appears once per table.
func TestAnalyzeDelta(t *testing.T) {
	logs := []string{sparktest.Path(t, "spark-events", "local-1430917381534"), sparktest.Path(t, "spark-events", "app-20161116163331-0000")}
	dir := t.TempDir()
	for round := range 2 {
		code, out, errs := runCLI(append([]string{"analyze", "--format", "json", "--delta", dir}, logs...)...)
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errs)
		}
		if !strings.Contains(out, `"schema": "sparkdx.report/v1"`) && !strings.Contains(out, `"schema":"sparkdx.report/v1"`) {
			t.Errorf("round %d: stdout lacks the JSON report: %.200q", round, out)
		}
	}
	checkApps(t, dir, 2)
	readByOthers(t, dir, deltaread.DeltaRS(t, nil))
}

func checkApps(t *testing.T, dir string, apps int) {
	t.Helper()
	for _, name := range []string{delta.TableApps, delta.TableJobs, delta.TableStages, delta.TableExecutors} {
		tb, err := deltacheck.Check(os.DirFS(filepath.Join(dir, name)))
		if err != nil {
			t.Fatalf("table %s: %v", name, err)
		}
		if got := len(tb.Txns); got != apps {
			t.Errorf("table %s: got %d app transactions, want %d", name, got, apps)
		}
		if name == delta.TableApps && tb.Rows != int64(apps) {
			t.Errorf("table apps: got %d rows, want %d", tb.Rows, apps)
		}
	}
}

func TestAnalyzeDeltaS3(t *testing.T) {
	m := sparktest.StartMinIO(t)
	ctx := context.Background()
	client := m.Bucket(t, "lake")
	t.Setenv("AWS_ENDPOINT_URL", "http://"+m.Addr)
	t.Setenv("AWS_ACCESS_KEY_ID", m.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", m.SecretKey)
	t.Setenv("AWS_REGION", "us-east-1")
	log := sparktest.Path(t, "spark-events", "local-1430917381534")
	if code, _, errs := runCLI("analyze", "--delta", "s3://lake/spark/history", log); code != 0 {
		t.Fatalf("endpoint from the environment: exit %d: %s", code, errs)
	}
	// The same table again, named as Spark names buckets (s3a://), the
	// endpoint given by flag for the log read from the bucket and for the
	// tables alike: the attempt is not written twice.
	if _, err := client.FPutObject(ctx, "lake", "logs/local-1430917381534", log, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ENDPOINT_URL", "")
	if code, _, errs := runCLI("analyze", "--s3-endpoint", "http://"+m.Addr, "--delta", "s3a://lake/spark/history",
		"s3a://lake/logs/local-1430917381534"); code != 0 {
		t.Fatalf("endpoint by flag: exit %d: %s", code, errs)
	}
	dir := t.TempDir()
	for obj := range client.ListObjects(ctx, "lake", minio.ListObjectsOptions{Prefix: "spark/history/", Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		dst := filepath.Join(dir, strings.TrimPrefix(obj.Key, "spark/history/"))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := client.FGetObject(ctx, "lake", obj.Key, dst, minio.GetObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	checkApps(t, dir, 1)
}

func TestAnalyzeDeltaBadDest(t *testing.T) {
	log := sparktest.Path(t, "spark-events", "local-1430917381534")
	for _, dest := range []string{"gs://bucket/x", "s3:///nobucket"} {
		code, _, errs := runCLI("analyze", "--delta", dest, log)
		if code != 2 || !strings.Contains(errs, "--delta") {
			t.Errorf("--delta %s: got exit %d, stderr %q; want 2 naming --delta", dest, code, errs)
		}
	}
}

// TestDeltaMaintenance: tables written by analyze --delta one log at a time
// are compacted by sparkdx delta optimize, vacuumed and their log cleaned;
// delta-rs reads every table afterwards as sparkdx does.
func TestDeltaMaintenance(t *testing.T) {
	dir := t.TempDir()
	logs := []string{sparktest.Path(t, "spark-events", "local-1430917381534"), sparktest.Path(t, "spark-events", "app-20161116163331-0000"),
		sparktest.Path(t, "spark-events", "app-20180109111548-0000")}
	for _, l := range logs {
		if code, _, errs := runCLI("analyze", "--format", "json", "--delta", dir, l); code != 0 {
			t.Fatalf("analyze --delta %s: %s", l, errs)
		}
	}
	before := checkTable(t, dir, delta.TableApps)
	code, out, errs := runCLI("delta", "optimize", dir)
	if code != 0 {
		t.Fatalf("delta optimize: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "apps       3 files → 1 (3 rows rewritten in 1 partitions)") {
		t.Errorf("delta optimize printed:\n%s", out)
	}
	after := checkTable(t, dir, delta.TableApps)
	if len(after.Files) != 1 || after.Rows != before.Rows || after.Version != before.Version+1 {
		t.Errorf("apps after optimize: %d files, %d rows, version %d; want 1 file, %d rows, version %d",
			len(after.Files), after.Rows, after.Version, before.Rows, before.Version+1)
	}
	if code, out, errs = runCLI("delta", "vacuum", "--dry-run", "--retention", "1ns", dir); code != 0 ||
		!strings.Contains(out, "apps       would delete 3 files") {
		t.Errorf("delta vacuum --dry-run: exit %d: %s\n%s", code, errs, out)
	}
	if code, out, errs = runCLI("delta", "vacuum", "--retention", "1ns", dir); code != 0 || !strings.Contains(out, "apps       deleted 3 files") {
		t.Errorf("delta vacuum: exit %d: %s\n%s", code, errs, out)
	}
	if code, out, errs = runCLI("delta", "clean-log", dir); code != 0 || !strings.Contains(out, "no checkpoint past the retention") {
		t.Errorf("delta clean-log: exit %d: %s\n%s", code, errs, out)
	}
	readByOthers(t, dir, deltaread.DeltaRS(t, nil))

	for _, c := range [][]string{{"delta"}, {"delta", "compact", dir}, {"delta", "vacuum"}, {"delta", "vacuum", t.TempDir()}} {
		if code, _, _ := runCLI(c...); code != 2 {
			t.Errorf("sparkdx %s: exit %d, want 2", strings.Join(c, " "), code)
		}
	}
}
