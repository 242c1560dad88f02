package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/sparkdx/sparkdx/internal/s3"
)

// S3Store is an S3 bucket (any S3-compatible service) as a Store, through
// minio-go. Names are s3://bucket/key URLs; "directories" are key prefixes
// ending in "/".
type S3Store struct {
	client *minio.Client
}

// NewS3Store connects to the endpoint in cfg (no request is made yet).
func NewS3Store(cfg s3.Config) (*S3Store, error) {
	client, err := s3.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return &S3Store{client: client}, nil
}

// Stat implements Store.
func (s *S3Store) Stat(ctx context.Context, name string) (Entry, error) {
	bucket, key, err := s3.Split(name)
	if err != nil {
		return Entry{}, err
	}
	if key != "" {
		info, err := s.client.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
		if err == nil {
			return Entry{Path: s3.URL(bucket, key), Name: path.Base(key), Size: info.Size, ModTime: info.LastModified}, nil
		}
		if minio.ToErrorResponse(err).StatusCode != http.StatusNotFound {
			return Entry{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	prefix := key + "/"
	if key == "" {
		prefix = ""
	}
	lctx, cancel := context.WithCancel(ctx) // stops minio's lister goroutine after one key
	defer cancel()
	for obj := range s.client.ListObjects(lctx, bucket, minio.ListObjectsOptions{Prefix: prefix, MaxKeys: 1}) {
		if obj.Err != nil {
			return Entry{}, fmt.Errorf("%s: %w", name, obj.Err)
		}
		return Entry{Path: strings.TrimSuffix(s3.URL(bucket, key), "/"), Name: path.Base("/" + key), IsDir: true}, nil
	}
	if key == "" {
		return Entry{Path: "s3://" + bucket, Name: bucket, IsDir: true}, nil // empty bucket
	}
	return Entry{}, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}

// List implements Store.
func (s *S3Store) List(ctx context.Context, dir string) ([]Entry, error) {
	bucket, key, err := s3.Split(dir)
	if err != nil {
		return nil, err
	}
	prefix := key + "/"
	if key == "" {
		prefix = ""
	}
	lctx, cancel := context.WithCancel(ctx) // stops minio's lister goroutine on an early return
	defer cancel()
	var entries []Entry
	for obj := range s.client.ListObjects(lctx, bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if obj.Err != nil {
			return nil, fmt.Errorf("%s: %w", dir, obj.Err)
		}
		name := strings.TrimPrefix(obj.Key, prefix)
		isDir := strings.HasSuffix(name, "/")
		name = strings.TrimSuffix(name, "/")
		if name == "" {
			continue // the "directory" marker object itself
		}
		entries = append(entries, Entry{
			Path: s3.URL(bucket, prefix+name), Name: name, IsDir: isDir,
			Size: obj.Size, ModTime: obj.LastModified,
		})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// Open implements Store.
func (s *S3Store) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	bucket, key, err := s3.Split(name)
	if err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s3Object{obj: obj, name: name}, nil
}

// OpenRange implements Store with a ranged GET (bytes=off-); an offset at
// or past the end gives no bytes (S3 answers 416).
func (s *S3Store) OpenRange(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	if off == 0 {
		return s.Open(ctx, name)
	}
	if off < 0 {
		return nil, fmt.Errorf("%s: negative offset %d", name, off)
	}
	bucket, key, err := s3.Split(name)
	if err != nil {
		return nil, err
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(off, 0); err != nil {
		return nil, fmt.Errorf("%s offset %d: %w", name, off, err)
	}
	obj, err := s.client.GetObject(ctx, bucket, key, opts)
	if err != nil {
		return nil, fmt.Errorf("%s offset %d: %w", name, off, err)
	}
	return &s3Object{obj: obj, name: name, rangeFrom: off}, nil
}

// s3Object turns minio's first-read errors into named, fs-style ones.
type s3Object struct {
	obj       *minio.Object
	name      string
	rangeFrom int64 // first byte of a ranged read, 0 for the whole object
}

func (o *s3Object) Read(p []byte) (int, error) {
	n, err := o.obj.Read(p)
	if err != nil && err != io.EOF {
		switch minio.ToErrorResponse(err).StatusCode {
		case http.StatusNotFound:
			err = errors.Join(fs.ErrNotExist, err)
		case http.StatusRequestedRangeNotSatisfiable:
			if o.rangeFrom > 0 {
				return n, io.EOF // the object ends at or before the range
			}
		}
		if o.rangeFrom > 0 {
			return n, fmt.Errorf("%s offset %d: %w", o.name, o.rangeFrom, err)
		}
		return n, fmt.Errorf("%s: %w", o.name, err)
	}
	return n, err
}

func (o *s3Object) Close() error { return o.obj.Close() }
