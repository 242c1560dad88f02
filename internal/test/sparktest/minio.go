package sparktest

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// MinIO is a running MinIO server for a test.
type MinIO struct {
	Addr      string // 127.0.0.1:port
	AccessKey string
	SecretKey string
}

// StartMinIO runs a real MinIO server (the `minio` program: Program) on
// 127.0.0.1 with a temporary data directory, stopped when the test ends. A
// missing minio fails in CI and skips elsewhere.
func StartMinIO(t testing.TB) MinIO {
	t.Helper()
	bin := Program(t, "minio")
	addr := FreeAddr(t)
	m := MinIO{Addr: addr, AccessKey: "sparkdx", SecretKey: "sparkdx-secret"}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "server", "--quiet", "--address", addr, "--console-address", "127.0.0.1:0", t.TempDir())
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+m.AccessKey, "MINIO_ROOT_PASSWORD="+m.SecretKey, "MINIO_BROWSER=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/minio/health/live")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("minio did not become ready on %s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Client returns a MinIO client for m, with m's root credentials.
func (m MinIO) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(m.Addr, &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey, m.SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Bucket makes bucket on m and returns a client for m.
func (m MinIO) Bucket(t testing.TB, bucket string) *minio.Client {
	t.Helper()
	c := m.Client(t)
	if err := c.MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
		t.Fatal(err)
	}
	return c
}

// Upload copies the local tree dir (hidden files included) into bucket
// under prefix.
func (m MinIO) Upload(t testing.TB, bucket, prefix, dir string) {
	t.Helper()
	c := m.Client(t)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		_, err = c.FPutObject(context.Background(), bucket, prefix+"/"+filepath.ToSlash(rel), p, minio.PutObjectOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
