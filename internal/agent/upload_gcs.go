package agent

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"

	"github.com/sparkdx/sparkdx/internal/gcs"
)

// gcsStore copies heap dumps to gs://bucket/prefix/<dump name>: a
// resumable upload in chunks, cancelled on failure (gcs.Client.Upload).
type gcsStore struct {
	client         *gcs.Client
	bucket, prefix string
}

func newGCSStore(url string, cfg gcs.Config) (*gcsStore, error) {
	bucket, prefix, err := gcs.Split(url)
	if err != nil {
		return nil, err
	}
	return &gcsStore{client: gcs.NewClient(cfg), bucket: bucket, prefix: prefix}, nil
}

func (u *gcsStore) put(ctx context.Context, file string) (string, error) {
	object := path.Join(u.prefix, filepath.Base(file))
	err := withDump(file, func(r io.ReaderAt, size int64) error {
		return u.client.Upload(ctx, u.bucket, object, r, size, hprofType)
	})
	if err != nil {
		return "", fmt.Errorf("upload %s to %s: %w", file, gcs.URL(u.bucket, object), err)
	}
	return gcs.URL(u.bucket, object), nil
}
