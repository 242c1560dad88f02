package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/export/delta/deltacheck"
	"github.com/sparkdx/sparkdx/internal/export/delta/deltaread"
	"github.com/sparkdx/sparkdx/internal/sparktest"
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
	for round := range 2 {
		if code, _, errs := runCLI("analyze", "--delta", "s3://lake/spark/history", log); code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errs)
		}
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
