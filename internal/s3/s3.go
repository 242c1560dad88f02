// Package s3 adapts S3-compatible object stores (AWS S3, MinIO, on-premise
// stores) for sparkdx: one configuration with its AWS-environment defaults,
// one client constructor, and the s3://, s3a:// and s3n:// URLs Spark
// configurations use. The event-log store and the Delta tables both reach
// S3 through it.
package s3

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Config says how to reach an S3-compatible store. Empty fields default
// from the AWS environment variables (see WithEnv).
type Config struct {
	Endpoint     string // host[:port] or URL; http:// implies Insecure. Default s3.amazonaws.com
	Region       string
	AccessKey    string // empty: environment, ~/.aws/credentials, then instance role
	SecretKey    string
	SessionToken string
	// PathStyle puts the bucket in the path, not the host name. Without
	// it the client picks: virtual hosts for AWS, paths for other
	// endpoints (MinIO and most on-premise stores).
	PathStyle bool
	Insecure  bool // plain HTTP
}

// WithEnv fills empty fields from AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL),
// AWS_REGION (or AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN as returned by getenv
// (os.Getenv when nil). An explicit access key is never paired with the
// environment's secret.
func (c Config) WithEnv(getenv func(string) string) Config {
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
func (c Config) endpoint() (host string, secure bool, err error) {
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

// NewClient returns a client for the endpoint in cfg (no request is made
// yet). With no AccessKey the credentials come from the AWS environment
// variables, ~/.aws/credentials, then the instance role.
func NewClient(cfg Config) (*minio.Client, error) {
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

// schemes are the URL schemes of S3 paths: Spark configurations name the
// same buckets through Hadoop's s3a:// (and the old s3n://).
var schemes = [...]string{"s3://", "s3a://", "s3n://"}

// IsURL reports whether name is an s3://, s3a:// or s3n:// URL.
func IsURL(name string) bool {
	_, ok := cutScheme(name)
	return ok
}

func cutScheme(name string) (string, bool) {
	for _, scheme := range schemes {
		if rest, ok := strings.CutPrefix(name, scheme); ok {
			return rest, true
		}
	}
	return name, false
}

// Split splits an s3://, s3a:// or s3n:// URL into bucket and key (without
// a trailing /).
func Split(name string) (bucket, key string, err error) {
	rest, ok := cutScheme(name)
	if !ok {
		return "", "", fmt.Errorf("%s: not an s3:// URL", name)
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%s: no bucket", name)
	}
	return bucket, strings.TrimSuffix(key, "/"), nil
}

// URL is the s3:// name of key in bucket.
func URL(bucket, key string) string { return "s3://" + bucket + "/" + key }

// IsNotFound says whether err is the store's answer that an object (or
// bucket) does not exist: S3's NoSuchKey, or a 404 (HEAD answers carry no
// code).
func IsNotFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound
}
