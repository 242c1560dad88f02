package delta

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/s3"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestLocate opens a table through each root form a user writes: a
// directory, and the s3:// and s3a:// URLs of one MinIO bucket (Spark's
// configurations name buckets with s3a://).
func TestLocate(t *testing.T) {
	ctx := context.Background()
	m := sparktest.StartMinIO(t)
	client := m.Bucket(t, "lake")
	cfg := s3.Config{Endpoint: "http://" + m.Addr, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey}
	dir := t.TempDir()
	for _, tt := range []struct{ root, wantKey string }{
		{dir, ""},
		{"s3://lake/a", "a/findings/_delta_log/00000000000000000000.json"},
		{"s3a://lake/b/", "b/findings/_delta_log/00000000000000000000.json"},
		{"s3n://lake", "findings/_delta_log/00000000000000000000.json"},
	} {
		loc, err := Locate(tt.root, cfg)
		if err != nil {
			t.Fatalf("Locate(%q): %v", tt.root, err)
		}
		if _, err := Open[FindingRow](ctx, loc(TableFindings), Options{Name: TableFindings}); err != nil {
			t.Fatalf("%s: open: %v", tt.root, err)
		}
		if tt.wantKey == "" {
			if _, err := NewDirStore(filepath.Join(dir, TableFindings)).Get(ctx, "_delta_log/00000000000000000000.json"); err != nil {
				t.Errorf("%s: no first commit: %v", tt.root, err)
			}
			continue
		}
		if _, err := client.StatObject(ctx, "lake", tt.wantKey, minio.StatObjectOptions{}); err != nil {
			t.Errorf("%s: no object %s: %v", tt.root, tt.wantKey, err)
		}
	}
	for _, bad := range []string{"", "gs://lake/x", "s3://", "s3a:///x", "file:///tmp/x"} {
		if _, err := Locate(bad, cfg); err == nil {
			t.Errorf("Locate(%q): got no error", bad)
		}
	}
}
