package server

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/s3"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/server/fleet"
	"github.com/sparkdx/sparkdx/internal/server/ingest"
	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/hstest"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestServeS3 serves logs from a MinIO bucket: the application list equals
// the local one, a log uploaded later appears by polling, and an object
// rewritten larger (how a running app's log grows on S3) is tailed.
func TestServeS3(t *testing.T) {
	m := sparktest.StartMinIO(t)
	addr := m.Addr
	client := m.Bucket(t, "logs")
	ctx := context.Background()
	local := sparktest.Path(t, "spark-events")
	var late string
	err := filepath.WalkDir(local, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(local, p)
		if rel == "local-1422981759269" {
			late = p // uploaded after the first scan
			return nil
		}
		_, err = client.FPutObject(ctx, "logs", "spark/"+filepath.ToSlash(rel), p, minio.PutObjectOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in, err := ingest.New(ingest.Config{Roots: []string{"s3://logs/spark"}, Store: st, Poll: 100 * time.Millisecond,
		Views: Views, Open: eventlog.OpenOptions{S3: s3.Config{Endpoint: "http://" + addr, Region: "us-east-1",
			AccessKey: m.AccessKey, SecretKey: m.SecretKey, PathStyle: true}}})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { in.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	ts := &testServer{in: in, st: st, srv: New(Config{Ingest: in, Store: st})}
	hs := newLocalServer(t, ts.srv)
	ts.url = hs
	ts.waitIdle(t)
	if st := in.Status(); st.Errors != 0 || st.Done != 18 {
		t.Fatalf("got %+v, want 18 logs done without errors", st)
	}

	// Upload the held-back log: polling finds it.
	if _, err := client.FPutObject(ctx, "logs", "spark/local-1422981759269", late, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "late upload", func() (bool, string) {
		_, ok := appSummary(t, ts, "local-1422981759269")
		return ok, ""
	})
	localTS := startServer(t, t.TempDir(), "", local)
	localTS.waitIdle(t)
	ts.waitIdle(t)
	for _, p := range []string{"/api/v1/applications", "/api/v1/applications/local-1430917381535/2/jobs",
		"/api/v1/applications/app-20200706201101-0003/stages"} {
		_, a := ts.get(t, p)
		_, b := localTS.get(t, p)
		ga, _ := hstest.Decode(a)
		gb, _ := hstest.Decode(b)
		hstest.Normalise(ga)
		hstest.Normalise(gb)
		ja, _ := json.Marshal(ga)
		jb, _ := json.Marshal(gb)
		if !bytes.Equal(ja, jb) {
			t.Errorf("GET %s: S3 and local answers differ:\n%.300s\n%.300s", p, ja, jb)
		}
	}

	// The raw-logs zip reads the objects: a two-attempt app and a rolling
	// directory (its hidden .crc side file included, as locally).
	ts.srv.cfg.RawLogs, localTS.srv.cfg.RawLogs = true, true
	for _, p := range []string{"/api/v1/applications/local-1430917381535/logs", "/api/v1/applications/local-1766844910796/logs"} {
		code, zs3 := ts.get(t, p)
		_, zlocal := localTS.get(t, p)
		got, want := zipEntries(t, zs3), zipEntries(t, zlocal)
		if code != 200 || len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("GET %s from S3: got %d %v, want the local zip %v", p, code, got, want)
		}
	}

	// A running app on S3: the object is rewritten larger.
	data, err := os.ReadFile(filepath.Join(local, tailApp))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(tailApp), []byte("local-3000000000001"))
	put := func(b []byte) {
		if _, err := client.PutObject(ctx, "logs", "spark/local-3000000000001.inprogress", bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put(data[:len(data)/3])
	var first fleet.AppSummary
	waitFor(t, "running app on S3", func() (bool, string) {
		var ok bool
		first, ok = appSummary(t, ts, "local-3000000000001")
		return ok && first.Events > 0, ""
	})
	time.Sleep(10 * time.Millisecond) // a later modification time
	put(data)
	waitFor(t, "grown app on S3", func() (bool, string) {
		a, _ := appSummary(t, ts, "local-3000000000001")
		return a.Events > first.Events && a.Tasks == 110, ""
	})
}

// zipEntries lists a zip's entries as "name size sum".
func zipEntries(t *testing.T, b []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip (%.60q): %v", b, err)
	}
	var out []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %x", f.Name, len(data), sha256.Sum256(data)))
	}
	return out
}
