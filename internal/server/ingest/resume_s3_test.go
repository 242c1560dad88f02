package ingest

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/s3"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestResumeS3 continues running logs on a real MinIO after a restart: a
// plain and a zstd object, rewritten larger while serve was down (how a
// log grows on S3), are resumed and read from the stored point (a ranged
// GET), and finish with the uninterrupted model's counts.
func TestResumeS3(t *testing.T) {
	m := sparktest.StartMinIO(t)
	client := m.Bucket(t, "logs")
	ctx := context.Background()
	s3 := s3.Config{Endpoint: "http://" + m.Addr, Region: "us-east-1", AccessKey: m.AccessKey,
		SecretKey: m.SecretKey, PathStyle: true}
	put := func(key string, data []byte) {
		t.Helper()
		if _, err := client.PutObject(ctx, "logs", key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	plain, err := os.ReadFile(sparktest.Path(t, "spark-events", "local-1642039451826"))
	if err != nil {
		t.Fatal(err)
	}
	zst, err := os.ReadFile(sparktest.Path(t, "compressed", "app-20200706201101-0003.zstd"))
	if err != nil {
		t.Fatal(err)
	}
	zplain, err := os.ReadFile(sparktest.Path(t, "spark-events", "app-20200706201101-0003"))
	if err != nil {
		t.Fatal(err)
	}
	put("spark/local-1642039451826.inprogress", plain[:len(plain)/2])
	put("spark/app-20200706201101-0003.zstd.inprogress", zst[:len(zst)/2])

	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := Config{Roots: []string{"s3://logs/spark"}, Store: st, SnapshotEvery: time.Nanosecond,
		Open: eventlog.OpenOptions{S3: s3}}
	in, stop := run(t, cfg)
	first := waitRead(t, in, int64(len(plain)/2)+1)
	stop()

	put("spark/local-1642039451826.inprogress", plain)
	put("spark/app-20200706201101-0003.zstd.inprogress", zst)
	in, _ = run(t, cfg)
	got := waitRead(t, in, int64(len(plain)+len(zplain))-first.Bytes)
	if got.Resumed != 2 || got.Bytes != int64(len(plain)+len(zplain))-first.Bytes {
		t.Errorf("restart: resumed %d, read %d bytes; want 2 and %d (what the first run had not read)",
			got.Resumed, got.Bytes, int64(len(plain)+len(zplain))-first.Bytes)
	}
	for key, src := range map[string][]byte{"s3://logs/spark/local-1642039451826": plain,
		"s3://logs/spark/app-20200706201101-0003.zstd": zplain} {
		a, release, err := in.Attempt(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		want, _, err := replay.Read(ctx, bytes.NewReader(src), replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if taskCount(a) != taskCount(want) || len(a.Jobs) != len(want.Jobs) || a.EndTime != want.EndTime {
			t.Errorf("%s: %d tasks %d jobs end %d; want %d %d %d", key, taskCount(a), len(a.Jobs), a.EndTime,
				taskCount(want), len(want.Jobs), want.EndTime)
		}
		release()
	}
}
