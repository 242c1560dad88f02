package agent

import (
	"context"
	"fmt"
	"path"
	"path/filepath"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/jvm/hprof"
	"github.com/sparkdx/sparkdx/internal/s3"
)

// heapTopClasses is how many of a dump's largest classes its event carries.
const heapTopClasses = 10

// dumpUploader copies heap dumps to s3://bucket/prefix/<dump name>.
type dumpUploader struct {
	client         *minio.Client
	bucket, prefix string
}

func newDumpUploader(url string, cfg s3.Config) (*dumpUploader, error) {
	bucket, prefix, err := s3.Split(url)
	if err != nil {
		return nil, fmt.Errorf("heap dump upload: %w", err)
	}
	client, err := s3.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("heap dump upload %s: %w", url, err)
	}
	return &dumpUploader{client: client, bucket: bucket, prefix: prefix}, nil
}

func (u *dumpUploader) put(ctx context.Context, file string) (string, error) {
	key := path.Join(u.prefix, filepath.Base(file))
	if _, err := u.client.FPutObject(ctx, u.bucket, key, file,
		minio.PutObjectOptions{ContentType: "application/vnd.java.hprof"}); err != nil {
		return "", fmt.Errorf("upload %s to %s: %w", file, s3.URL(u.bucket, key), err)
	}
	return s3.URL(u.bucket, key), nil
}

// summarize reads the dump just written into ev.HeapDump — its class
// histogram, at histogram speed — and puts its largest classes and the
// Spark notes on the event; then uploads it when an upload is set. A
// failure of either is said in the event's detail: the dump stays on the
// node.
func (h *heapDumper) summarize(ctx context.Context, ev *Event) {
	hist, err := hprof.ReadFile(ctx, ev.HeapDump, hprof.Options{MaxStrings: -1})
	if err != nil {
		ev.Detail = join(ev.Detail, fmt.Sprintf("histogram: %v", err))
	} else {
		ev.HeapTop = hist.Classes[:min(heapTopClasses, len(hist.Classes))]
		ev.HeapNotes = hprof.SparkNotes(hist.Classes)
	}
	if h.upload == nil {
		return
	}
	url, err := h.upload.put(ctx, ev.HeapDump)
	if err != nil {
		ev.Detail = join(ev.Detail, err.Error())
		return
	}
	ev.HeapDumpURL = url
}
