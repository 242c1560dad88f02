// Package gcs uploads files to Google Cloud Storage through its JSON API's
// resumable uploads, with Google's default credentials (x/oauth2/google:
// GOOGLE_APPLICATION_CREDENTIALS — a service-account key or a workload
// identity federation file —, gcloud's application-default login, then the
// metadata server of GCE, GKE and Dataproc). It does not use
// cloud.google.com/go/storage: that SDK adds 17.5 MB to the 32 MB binary
// (its gRPC transport, generated API and telemetry) for one upload call;
// this package and x/oauth2 add a quarter of a MB.
package gcs

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// Scope is the OAuth scope uploads need.
const Scope = "https://www.googleapis.com/auth/devstorage.read_write"

// Config says how to reach Cloud Storage.
type Config struct {
	// Endpoint is the API's base URL; default https://storage.googleapis.com.
	Endpoint string
	// NoAuth sends no credentials (an emulator).
	NoAuth bool
	// ChunkSize is the resumable upload's chunk, a multiple of 256 KiB;
	// default 16 MiB, as the S3 path's parts.
	ChunkSize int64
	// Retries is how often a chunk is retried after a transient failure
	// (default 10, 0.2 s doubling to 1 s between tries, as the S3 path).
	Retries int
}

// WithEnv fills an empty Endpoint from STORAGE_EMULATOR_HOST (host:port or
// URL), the variable Google's own clients read, and then sends no
// credentials, as they do.
func (c Config) WithEnv(getenv func(string) string) Config {
	if getenv == nil {
		getenv = os.Getenv
	}
	if host := getenv("STORAGE_EMULATOR_HOST"); c.Endpoint == "" && host != "" {
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		c.Endpoint, c.NoAuth = host, true
	}
	return c
}

// IsURL reports whether name is a gs:// URL.
func IsURL(name string) bool { return strings.HasPrefix(name, "gs://") }

// Split splits a gs:// URL into bucket and object prefix (without a
// trailing /).
func Split(name string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(name, "gs://")
	if !ok {
		return "", "", fmt.Errorf("%s: not a gs:// URL", name)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%s: no bucket", name)
	}
	return bucket, strings.Trim(prefix, "/"), nil
}

// URL is the gs:// name of object in bucket.
func URL(bucket, object string) string { return "gs://" + bucket + "/" + object }

// Client uploads objects. Its credentials are found at the first upload,
// not at construction: finding none off Google's cloud takes the metadata
// server's time-out, which an agent's start should not wait for.
type Client struct {
	cfg  Config
	base string
	// plain carries no credentials: the session URI of a resumable
	// upload is its own authorisation, and DELETE on it must work after
	// the token source failed.
	plain *http.Client

	mu   sync.Mutex
	auth *http.Client // nil until credentials were found
}

// NewClient returns a client for cfg; no request is made yet.
func NewClient(cfg Config) *Client {
	cfg.ChunkSize = cmp.Or(cfg.ChunkSize, 16<<20)
	cfg.Retries = cmp.Or(cfg.Retries, 10)
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		// 308 is the resumable protocol's "resume incomplete", never a redirect.
		return http.ErrUseLastResponse
	}}
	return &Client{cfg: cfg, base: strings.TrimSuffix(cmp.Or(cfg.Endpoint, "https://storage.googleapis.com"), "/"), plain: plain}
}

// authed returns the client carrying Google's default credentials.
func (c *Client) authed(ctx context.Context) (*http.Client, error) {
	if c.cfg.NoAuth {
		return c.plain, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.auth != nil {
		return c.auth, nil
	}
	creds, err := google.FindDefaultCredentials(ctx, Scope)
	if err != nil {
		return nil, fmt.Errorf("gcs credentials: %w", err)
	}
	// Fetch a token now: a wrong key or an unreachable token endpoint is
	// said as such, not as a failed upload request.
	if _, err := creds.TokenSource.Token(); err != nil {
		return nil, fmt.Errorf("gcs credentials: %w", err)
	}
	c.auth = &http.Client{
		Transport:     &oauth2.Transport{Source: creds.TokenSource, Base: http.DefaultTransport},
		CheckRedirect: c.plain.CheckRedirect,
	}
	return c.auth, nil
}
