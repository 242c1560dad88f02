package delta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/s3"
)

// S3Store keeps a table under Prefix in an S3 bucket. Exclusive writes are
// conditional PutObject requests with If-None-Match: *, which S3 (since
// 2024) and MinIO answer with 412 Precondition Failed when the key exists.
type S3Store struct {
	Client *minio.Client
	Bucket string
	Prefix string // table root inside the bucket, no leading or trailing slash

	verify sync.Once
	verr   error
}

// NewS3Store returns a store for s3://bucket/prefix reached through client.
func NewS3Store(client *minio.Client, bucket, prefix string) *S3Store {
	return &S3Store{Client: client, Bucket: bucket, Prefix: strings.Trim(prefix, "/")}
}

func (s *S3Store) key(key string) string {
	if s.Prefix == "" {
		return key
	}
	return s.Prefix + "/" + key
}

func (s *S3Store) url(key string) string { return "s3://" + s.Bucket + "/" + s.key(key) }

// Put implements Storage.
func (s *S3Store) Put(ctx context.Context, key string, data []byte, exclusive bool) error {
	opts := minio.PutObjectOptions{DisableMultipart: true, SendContentMd5: true}
	if exclusive {
		opts.SetMatchETagExcept("*")
	}
	_, err := s.Client.PutObject(ctx, s.Bucket, s.key(key), bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		if exclusive && isPreconditionFailed(err) {
			return fmt.Errorf("delta: %s: %w", s.url(key), ErrExist)
		}
		return fmt.Errorf("delta: put %s: %w", s.url(key), err)
	}
	return nil
}

func isPreconditionFailed(err error) bool {
	r := minio.ToErrorResponse(err)
	// 409 ConditionalRequestConflict: a concurrent conditional write to the
	// same key is in flight; it will win or fail, either way this one lost.
	return r.StatusCode == http.StatusPreconditionFailed || r.Code == "PreconditionFailed" ||
		r.StatusCode == http.StatusConflict
}

// verifyExclusive checks, once, that the store honours If-None-Match: an
// S3-compatible store that ignores it would let two writers both "win" a
// version and silently lose a commit, so such a store is refused.
func (s *S3Store) verifyExclusive(ctx context.Context) error {
	s.verify.Do(func() {
		key := "_delta_log/.sparkdx-probe-" + uuid.NewString()
		if err := s.Put(ctx, key, []byte("1"), true); err != nil {
			s.verr = err
			return
		}
		defer s.Client.RemoveObject(ctx, s.Bucket, s.key(key), minio.RemoveObjectOptions{})
		err := s.Put(ctx, key, []byte("2"), true)
		switch {
		case errors.Is(err, ErrExist):
		case err == nil:
			s.verr = fmt.Errorf("delta: s3://%s: the store ignores If-None-Match on PutObject; concurrent commits would be lost", s.Bucket)
		default:
			s.verr = err
		}
	})
	return s.verr
}

// Get implements Storage.
func (s *S3Store) Get(ctx context.Context, key string) ([]byte, error) {
	obj, err := s.Client.GetObject(ctx, s.Bucket, s.key(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("delta: get %s: %w", s.url(key), err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		if s3.IsNotFound(err) {
			return nil, fmt.Errorf("delta: %s: %w", s.url(key), ErrNotExist)
		}
		return nil, fmt.Errorf("delta: get %s: %w", s.url(key), err)
	}
	return b, nil
}

// List implements Storage.
func (s *S3Store) List(ctx context.Context, dir string) ([]string, error) {
	prefix := s.key(strings.TrimSuffix(dir, "/")) + "/"
	var names []string
	for obj := range s.Client.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("delta: list s3://%s/%s: %w", s.Bucket, prefix, obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue
		}
		names = append(names, path.Base(obj.Key))
	}
	sort.Strings(names)
	return names, nil
}

// Walk implements Sweeper.
func (s *S3Store) Walk(ctx context.Context) ([]Object, error) {
	root := s.key("")
	if root != "" && !strings.HasSuffix(root, "/") {
		root += "/"
	}
	var out []Object
	for obj := range s.Client.ListObjects(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: root, Recursive: true}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("delta: list s3://%s/%s: %w", s.Bucket, root, obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue
		}
		out = append(out, Object{Key: strings.TrimPrefix(obj.Key, root), Size: obj.Size, ModTime: obj.LastModified})
	}
	return out, nil
}

// Delete implements Sweeper.
func (s *S3Store) Delete(ctx context.Context, key string) error {
	if err := s.Client.RemoveObject(ctx, s.Bucket, s.key(key), minio.RemoveObjectOptions{}); err != nil {
		if s3.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("delta: delete %s: %w", s.url(key), err)
	}
	return nil
}
