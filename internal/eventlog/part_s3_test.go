package eventlog

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/s3"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestReadPartS3 tails plain and compressed logs on a real MinIO with
// ranged reads: the bytes equal the local ones; a position at the end of
// an object (S3 answers 416) gives no bytes and eof; and after the object
// grows a turn fetches only the new bytes plus at most one block.
func TestReadPartS3(t *testing.T) {
	m := sparktest.StartMinIO(t)
	client := m.Bucket(t, "logs")
	ctx := context.Background()
	dir := sparktest.Path(t, "compressed")
	m.Upload(t, "logs", "compressed", dir)
	m.Upload(t, "logs", "plain", sparktest.Path(t, "spark-events"))
	s3, err := NewS3Store(s3.Config{Endpoint: "http://" + m.Addr, Region: "us-east-1", AccessKey: m.AccessKey, SecretKey: m.SecretKey, PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ s3, local string }{
		{"plain/local-1430917381534", sparktest.Path(t, "spark-events", "local-1430917381534")},
		{"compressed/local-1642039451826.inprogress", filepath.Join(dir, "local-1642039451826.inprogress")},
		{"compressed/local-1642039451826.lz4", filepath.Join(dir, "local-1642039451826.lz4")},
		{"compressed/local-1642039451826.snappy", filepath.Join(dir, "local-1642039451826.snappy")},
		{"compressed/local-1642039451826.lzf", filepath.Join(dir, "local-1642039451826.lzf")},
		{"compressed/local-1642039451826.zstd", filepath.Join(dir, "local-1642039451826.zstd")},
		{"compressed/local-1642039451826-cut.zstd.inprogress", filepath.Join(dir, "local-1642039451826-cut.zstd.inprogress")},
		{"compressed/rolling-zstd/eventlog_v2_app-20200706201101-0003", filepath.Join(dir, "rolling-zstd", "eventlog_v2_app-20200706201101-0003")},
	}
	for _, tt := range tests {
		t.Run(tt.s3, func(t *testing.T) {
			want, _, err := readAll(t, openOne(t, tt.local, OpenOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			l := openOne(t, "s3://logs/"+tt.s3, OpenOptions{Store: s3})
			var got bytes.Buffer
			part, pos, turns := tailLog(t, l, rand.New(rand.NewPCG(uint64(len(want)), 4)), 0, PartPos{}, &got)
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("got %d bytes in %d turns, want the %d local bytes", got.Len(), turns, len(want))
			}
			// Again at the end: nothing more, no error.
			data, next, eof, err := l.ReadPart(ctx, part, pos, 1<<20)
			if err != nil || !eof || len(data) != 0 || next != pos {
				t.Errorf("at the end %+v: got %d bytes, %+v, eof %v, error %v; want none, eof", pos, len(data), next, eof, err)
			}
		})
	}
	t.Run("grows", func(t *testing.T) {
		for _, name := range []string{"local-1642039451826.zstd", "local-1642039451826.lz4", "local-1642039451826.inprogress"} {
			src := readFile(t, filepath.Join(dir, name))
			key := "grow/" + name + ".inprogress"
			if filepath.Ext(name) == ".inprogress" {
				key = "grow/" + name
			}
			put := func(b []byte) {
				if _, err := client.PutObject(ctx, "logs", key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			store := &countingStore{Store: s3}
			half := len(src) / 2
			put(src[:half])
			var got bytes.Buffer
			_, pos, _ := tailLog(t, openOne(t, "s3://logs/"+key, OpenOptions{Store: store}), rand.New(rand.NewPCG(5, 5)), 0, PartPos{}, &got)
			put(src)
			l := openOne(t, "s3://logs/"+key, OpenOptions{Store: store})
			before := store.read.Load()
			data, _, eof, err := l.ReadPart(ctx, 0, pos, 1<<30)
			if err != nil || !eof {
				t.Fatalf("%s: got eof %v, error %v", name, eof, err)
			}
			got.Write(data)
			want, _, _ := readAll(t, openOne(t, filepath.Join(dir, name), OpenOptions{}))
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s: got %d bytes, want %d", name, got.Len(), len(want))
			}
			read := store.read.Load() - before
			if read != int64(len(src))-pos.Comp {
				t.Errorf("%s: read %d stored bytes from restart point %+v, want the %d after it", name, read, pos, int64(len(src))-pos.Comp)
			}
			if pos.Comp < int64(half)-32<<10 {
				t.Errorf("%s: restart point %+v is more than a block before the %d bytes read", name, pos, half)
			}
		}
	})
}
