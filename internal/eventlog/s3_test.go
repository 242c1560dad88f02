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

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

func TestS3ConfigWithEnv(t *testing.T) {
	env := map[string]string{
		"AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_REGION": "eu-west-1",
		"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
	}
	got := S3Config{Region: "us-east-1"}.WithEnv(func(k string) string { return env[k] })
	want := S3Config{Endpoint: "http://127.0.0.1:9000", Region: "us-east-1", AccessKey: "id", SecretKey: "secret"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// An explicit access key is not mixed with the environment's secret.
	got = S3Config{AccessKey: "mine"}.WithEnv(func(k string) string { return env[k] })
	if got.SecretKey != "" {
		t.Errorf("got secret %q with an explicit access key, want none", got.SecretKey)
	}
}

func TestS3ConfigEndpoint(t *testing.T) {
	tests := []struct {
		cfg     S3Config
		host    string
		secure  bool
		wantErr bool
	}{
		{S3Config{}, "s3.amazonaws.com", true, false},
		{S3Config{Endpoint: "http://127.0.0.1:9000"}, "127.0.0.1:9000", false, false},
		{S3Config{Endpoint: "https://s3.example.com/"}, "s3.example.com", true, false},
		{S3Config{Endpoint: "minio:9000", Insecure: true}, "minio:9000", false, false},
		{S3Config{Endpoint: "ftp://x"}, "", false, true},
		{S3Config{Endpoint: "http://x/bucket"}, "", false, true},
	}
	for _, tt := range tests {
		host, secure, err := tt.cfg.endpoint()
		if host != tt.host || secure != tt.secure || (err != nil) != tt.wantErr {
			t.Errorf("%+v: got %q, %v, %v; want %q, %v, error %v", tt.cfg, host, secure, err, tt.host, tt.secure, tt.wantErr)
		}
	}
}

func TestNewS3Client(t *testing.T) {
	tests := []struct {
		cfg     S3Config
		url     string
		wantErr bool
	}{
		{S3Config{}, "https://s3.amazonaws.com", false},
		{S3Config{Endpoint: "http://127.0.0.1:9000", PathStyle: true}, "http://127.0.0.1:9000", false},
		{S3Config{Endpoint: "minio:9000", Insecure: true}, "http://minio:9000", false},
		{S3Config{Endpoint: "ftp://x"}, "", true},
	}
	for _, tt := range tests {
		c, err := NewS3Client(tt.cfg)
		if (err != nil) != tt.wantErr {
			t.Errorf("%+v: got error %v, want error %v", tt.cfg, err, tt.wantErr)
			continue
		}
		if err == nil && c.EndpointURL().String() != tt.url {
			t.Errorf("%+v: got endpoint %s, want %s", tt.cfg, c.EndpointURL(), tt.url)
		}
	}
}

func TestSplitS3(t *testing.T) {
	tests := []struct{ in, bucket, key string }{
		{"s3://b", "b", ""},
		{"s3://b/", "b", ""},
		{"s3://b/dir/", "b", "dir"},
		{"s3://b/dir/app-1.lz4", "b", "dir/app-1.lz4"},
		{"s3a://b/spark-logs", "b", "spark-logs"},
		{"s3n://b/", "b", ""},
	}
	for _, tt := range tests {
		b, k, err := splitS3(tt.in)
		if b != tt.bucket || k != tt.key || err != nil {
			t.Errorf("splitS3(%q) = %q, %q, %v; want %q, %q", tt.in, b, k, err, tt.bucket, tt.key)
		}
	}
	for _, bad := range []string{"s3://", "s3:///key", "/local", "gs://b/k"} {
		if _, _, err := splitS3(bad); err == nil {
			t.Errorf("splitS3(%q): got no error", bad)
		}
	}
}

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
	cfg := S3Config{Endpoint: "http://" + m.Addr, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey, PathStyle: true}
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
			if !IsS3(url) {
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
		logs, err := Open(ctx, "s3://logs/spark-events/local-1430917381534", OpenOptions{S3: S3Config{PathStyle: true}})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := readAll(t, logs[0])
		if want := readFile(t, filepath.Join(trees["spark-events"], "local-1430917381534")); err != nil || !bytes.Equal(got, want) {
			t.Errorf("got %d bytes, %v; want %d", len(got), err, len(want))
		}
	})
}
