package eventlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/s3"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// logSummary is what must agree between a local log and its S3 copy.
func logSummary(t *testing.T, l *Log) string {
	t.Helper()
	data, r, err := readAll(t, l)
	var parts []string
	for _, p := range l.Parts {
		parts = append(parts, fmt.Sprintf("%s/%d/%s/%d/%v", filepath.Base(p.Path), p.Size, p.Codec, p.Index, p.Compact))
	}
	cut := r != nil && r.Cut() != nil
	trunc := r != nil && r.Truncated()
	return fmt.Sprintf("%s codec=%s rolling=%v inprogress=%v size=%d parts=%v bytes=%d sum=%x truncated=%v cut=%v err=%v",
		l.Name, l.Codec, l.Rolling, l.InProgress, l.Size, parts, len(data), fnvSum(data), trunc, cut, err != nil)
}

func fnvSum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// TestS3MinIO uploads the shared logs and the fixtures to a real MinIO and
// checks that every layout opens and decodes exactly as it does locally.
func TestS3MinIO(t *testing.T) {
	m := sparktest.StartMinIO(t)
	m.Bucket(t, "logs")
	cfg := s3.Config{Endpoint: "http://" + m.Addr, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey, PathStyle: true}
	ctx := context.Background()
	trees := map[string]string{
		"spark-events": sparktest.Path(t, "spark-events"),
		"compressed":   sparktest.Path(t, "compressed"),
		"fixtures":     "testdata",
	}
	for prefix, dir := range trees {
		m.Upload(t, "logs", prefix, dir)
	}
	tests := []struct{ s3, local string }{
		// Spark configurations name buckets with Hadoop's s3a:// scheme.
		{"s3a://logs/spark-events/local-1430917381534", filepath.Join(trees["spark-events"], "local-1430917381534")},
		{"spark-events", trees["spark-events"]},
		{"compressed", trees["compressed"]},
		{"compressed/rolling-zstd/eventlog_v2_app-20200706201101-0003", filepath.Join(trees["compressed"], "rolling-zstd", "eventlog_v2_app-20200706201101-0003")},
		{"compressed/rolling-lz4/eventlog_v2_app-20200706201101-0003/", filepath.Join(trees["compressed"], "rolling-lz4", "eventlog_v2_app-20200706201101-0003")},
		{"compressed/local-1642039451826.lz4.inprogress", filepath.Join(trees["compressed"], "local-1642039451826.lz4.inprogress")},
		{"spark-events/eventlog_v2_local-1766844910796", filepath.Join(trees["spark-events"], "eventlog_v2_local-1766844910796")},
		{"fixtures/rotation", filepath.Join("testdata", "rotation")},
		{"fixtures/compact/eventlog_v2_app-compact", filepath.Join("testdata", "compact", "eventlog_v2_app-compact")},
		{"fixtures", "testdata"},
	}
	opts := OpenOptions{S3: cfg}
	for _, tt := range tests {
		t.Run(tt.s3, func(t *testing.T) {
			var skipS3, skipLocal []string
			s3Opts := opts
			s3Opts.Skipped = func(p string, _ error) { skipS3 = append(skipS3, filepath.Base(p)) }
			url := tt.s3
			if !s3.IsURL(url) {
				url = "s3://logs/" + url
			}
			remote, err := Open(ctx, url, s3Opts)
			if err != nil {
				t.Fatal(err)
			}
			local, err := Open(ctx, tt.local, OpenOptions{Skipped: func(p string, _ error) { skipLocal = append(skipLocal, filepath.Base(p)) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(remote) != len(local) || strings.Join(skipS3, " ") != strings.Join(skipLocal, " ") {
				t.Fatalf("got %d logs (skipped %v), want %d (skipped %v)", len(remote), skipS3, len(local), skipLocal)
			}
			for i := range local {
				if !strings.HasPrefix(remote[i].Path, "s3://logs/") {
					t.Errorf("Path %q, want s3://logs/...", remote[i].Path)
				}
				if got, want := logSummary(t, remote[i]), logSummary(t, local[i]); got != want {
					t.Errorf("got  %s\nwant %s", got, want)
				}
			}
		})
	}
	t.Run("bucket root", func(t *testing.T) {
		var skipped []string
		o := opts
		o.Skipped = func(p string, _ error) { skipped = append(skipped, p) }
		logs, err := Open(ctx, "s3://logs", o)
		want := "s3://logs/compressed s3://logs/fixtures s3://logs/spark-events"
		if err != nil || len(logs) != 0 || strings.Join(skipped, " ") != want {
			t.Errorf("got %d logs, skipped %v, error %v; want none, skipped %s", len(logs), skipped, err, want)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := Open(ctx, "s3://logs/nope", opts); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("got error %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("config from environment", func(t *testing.T) {
		t.Setenv("AWS_ENDPOINT_URL", cfg.Endpoint)
		t.Setenv("AWS_ACCESS_KEY_ID", cfg.AccessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", cfg.SecretKey)
		t.Setenv("AWS_REGION", cfg.Region)
		logs, err := Open(ctx, "s3://logs/spark-events/local-1430917381534", OpenOptions{S3: s3.Config{PathStyle: true}})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := readAll(t, logs[0])
		if want := readFile(t, filepath.Join(trees["spark-events"], "local-1430917381534")); err != nil || !bytes.Equal(got, want) {
			t.Errorf("got %d bytes, %v; want %d", len(got), err, len(want))
		}
	})
}
