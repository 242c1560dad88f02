package agent

import (
	"context"
	"fmt"
	"path"
	"path/filepath"

	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/s3"
)

// s3Store copies heap dumps to s3://bucket/prefix/<dump name>: a multipart
// upload of 16 MiB parts read from the file, each request retried ten
// times, aborted on failure (minio-go), visible only once complete.
type s3Store struct {
	client         *minio.Client
	bucket, prefix string
}

func newS3Store(url string, cfg s3.Config) (*s3Store, error) {
	bucket, prefix, err := s3.Split(url)
	if err != nil {
		return nil, err
	}
	client, err := s3.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return &s3Store{client: client, bucket: bucket, prefix: prefix}, nil
}

func (u *s3Store) put(ctx context.Context, file string) (string, error) {
	key := path.Join(u.prefix, filepath.Base(file))
	if _, err := u.client.FPutObject(ctx, u.bucket, key, file,
		minio.PutObjectOptions{ContentType: hprofType}); err != nil {
		return "", fmt.Errorf("upload %s to %s: %w", file, s3.URL(u.bucket, key), err)
	}
	return s3.URL(u.bucket, key), nil
}
