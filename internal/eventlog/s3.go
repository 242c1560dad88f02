package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config says how to reach an S3-compatible store. Empty fields default
// from the AWS environment variables (see WithEnv).
type S3Config struct {
	Endpoint     string // host[:port] or URL; http:// implies Insecure. Default s3.amazonaws.com
	Region       string
	AccessKey    string // empty: environment, ~/.aws/credentials, then instance role
	SecretKey    string
	SessionToken string
	PathStyle    bool // bucket in the path, not the host name (MinIO, most on-premise stores)
	Insecure     bool // plain HTTP
}

// WithEnv fills empty fields from AWS_ENDPOINT_URL, AWS_REGION (or
// AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN as returned by getenv (os.Getenv when nil).
func (c S3Config) WithEnv(getenv func(string) string) S3Config {
	if getenv == nil {
		getenv = os.Getenv
	}
	fill := func(dst *string, keys ...string) {
		for _, k := range keys {
			if *dst == "" {
				*dst = getenv(k)
			}
		}
	}
	fill(&c.Endpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	fill(&c.Region, "AWS_REGION", "AWS_DEFAULT_REGION")
	if c.AccessKey == "" {
		fill(&c.AccessKey, "AWS_ACCESS_KEY_ID")
		fill(&c.SecretKey, "AWS_SECRET_ACCESS_KEY")
		fill(&c.SessionToken, "AWS_SESSION_TOKEN")
	}
	return c
}

// endpoint returns the host[:port] to dial and whether to use TLS.
func (c S3Config) endpoint() (host string, secure bool, err error) {
	ep := c.Endpoint
	if ep == "" {
		return "s3.amazonaws.com", !c.Insecure, nil
	}
	if !strings.Contains(ep, "://") {
		return strings.TrimSuffix(ep, "/"), !c.Insecure, nil
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", false, fmt.Errorf("s3 endpoint %q: %w", ep, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, fmt.Errorf("s3 endpoint %q: scheme %q, want http or https", ep, u.Scheme)
	case u.Host == "" || (u.Path != "" && u.Path != "/"):
		return "", false, fmt.Errorf("s3 endpoint %q: want scheme://host[:port]", ep)
	}
	return u.Host, u.Scheme == "https" && !c.Insecure, nil
}

// S3Store is an S3 bucket (any S3-compatible service) as a Store, through
// minio-go. Names are s3://bucket/key URLs; "directories" are key prefixes
// ending in "/".
type S3Store struct {
	client *minio.Client
}

// NewS3Store connects to the endpoint in cfg (no request is made yet).
func NewS3Store(cfg S3Config) (*S3Store, error) {
	client, err := NewS3Client(cfg)
	if err != nil {
		return nil, err
	}
	return &S3Store{client: client}, nil
}

// NewS3Client returns a client for the endpoint in cfg (no request is made
// yet). With no AccessKey the credentials come from the AWS environment
// variables, ~/.aws/credentials, then the instance role.
func NewS3Client(cfg S3Config) (*minio.Client, error) {
	host, secure, err := cfg.endpoint()
	if err != nil {
		return nil, err
	}
	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	if cfg.AccessKey == "" {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.FileAWSCredentials{},
			&credentials.IAM{Client: &http.Client{Transport: http.DefaultTransport}},
		})
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: cfg.Region, BucketLookup: lookup})
	if err != nil {
		return nil, fmt.Errorf("s3 %s: %w", host, err)
	}
	return client, nil
}

// s3Schemes are the URL schemes of S3 paths: Spark configurations name the
// same buckets through Hadoop's s3a:// (and the old s3n://).
var s3Schemes = [...]string{"s3://", "s3a://", "s3n://"}

// IsS3 reports whether name is an s3://, s3a:// or s3n:// URL.
func IsS3(name string) bool {
	_, ok := cutS3Scheme(name)
	return ok
}

func cutS3Scheme(name string) (string, bool) {
	for _, scheme := range s3Schemes {
		if rest, ok := strings.CutPrefix(name, scheme); ok {
			return rest, true
		}
	}
	return name, false
}

// splitS3 splits s3://bucket/key into bucket and key (without a trailing /).
func splitS3(name string) (bucket, key string, err error) {
	rest, ok := cutS3Scheme(name)
	if !ok {
		return "", "", fmt.Errorf("%s: not an s3:// URL", name)
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%s: no bucket", name)
	}
	return bucket, strings.TrimSuffix(key, "/"), nil
}

func s3Name(bucket, key string) string { return "s3://" + bucket + "/" + key }

// Stat implements Store.
func (s *S3Store) Stat(ctx context.Context, name string) (Entry, error) {
	bucket, key, err := splitS3(name)
	if err != nil {
		return Entry{}, err
	}
	if key != "" {
		info, err := s.client.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
		if err == nil {
			return Entry{Path: s3Name(bucket, key), Name: path.Base(key), Size: info.Size, ModTime: info.LastModified}, nil
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
		return Entry{Path: strings.TrimSuffix(s3Name(bucket, key), "/"), Name: path.Base("/" + key), IsDir: true}, nil
	}
	if key == "" {
		return Entry{Path: "s3://" + bucket, Name: bucket, IsDir: true}, nil // empty bucket
	}
	return Entry{}, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}

// List implements Store.
func (s *S3Store) List(ctx context.Context, dir string) ([]Entry, error) {
	bucket, key, err := splitS3(dir)
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
			Path: s3Name(bucket, prefix+name), Name: name, IsDir: isDir,
			Size: obj.Size, ModTime: obj.LastModified,
		})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// Open implements Store.
func (s *S3Store) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	bucket, key, err := splitS3(name)
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
	bucket, key, err := splitS3(name)
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
