package deltaexporter

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/s3"
	"go.opentelemetry.io/collector/config/configretry"
)

// Config is the delta exporter's configuration:
//
//	exporters:
//	  delta:
//	    path: s3://lake/sparkdx      # or a local directory
//	    s3:
//	      endpoint: http://minio:9000 # empty: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS S3
//	      region: us-east-1          # empty: $AWS_REGION
//	      path_style: false          # buckets in the path (the default for endpoints other than AWS)
//	    flush_interval: 1m
//	    max_rows: 100000
//	    maintain_interval: 24h      # compaction, vacuum, log cleanup; 0: never
//
// The path may also be written s3a://, as Spark configurations name
// buckets. S3 credentials come from the AWS environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), ~/.aws/credentials or the
// instance role, never from the configuration file.
type Config struct {
	// Path is the sparkdx Delta root; the exporter appends to its
	// "samples" table (Path/samples).
	Path string `mapstructure:"path"`
	S3   S3     `mapstructure:"s3"`
	// FlushInterval bounds how long a data point waits before it is
	// committed; MaxRows commits earlier when that many rows wait.
	FlushInterval time.Duration `mapstructure:"flush_interval"`
	MaxRows       int           `mapstructure:"max_rows"`
	// CheckpointInterval is the number of commits between checkpoints.
	CheckpointInterval int64 `mapstructure:"checkpoint_interval"`
	// MaintainInterval is how often the samples table is compacted,
	// vacuumed (files unreferenced for 7 days) and its log cleaned (entries
	// older than 30 days before a checkpoint); 0 never.
	MaintainInterval time.Duration `mapstructure:"maintain_interval"`

	BackOff configretry.BackOffConfig `mapstructure:"retry_on_failure"`
}

// S3 says how to reach an S3-compatible store.
type S3 struct {
	Endpoint  string `mapstructure:"endpoint"` // http(s)://host[:port]; empty: AWS S3
	Region    string `mapstructure:"region"`
	PathStyle bool   `mapstructure:"path_style"`
}

// config is the S3 settings, the AWS environment filling the rest.
func (c S3) config() s3.Config {
	return s3.Config{Endpoint: c.Endpoint, Region: c.Region, PathStyle: c.PathStyle}.WithEnv(nil)
}

// Validate fails fast on a configuration the exporter cannot run with.
func (c *Config) Validate() error {
	var errs []error
	switch {
	case c.Path == "":
		errs = append(errs, errors.New("path: required (a directory or s3://bucket/prefix)"))
	default:
		if _, err := delta.Locate(c.Path, c.S3.config()); err != nil {
			errs = append(errs, fmt.Errorf("path %q: %v", c.Path, err))
		}
	}
	if c.S3.Endpoint != "" && !strings.HasPrefix(c.S3.Endpoint, "http://") && !strings.HasPrefix(c.S3.Endpoint, "https://") {
		errs = append(errs, fmt.Errorf("s3.endpoint %q: want http(s)://host[:port]", c.S3.Endpoint))
	}
	if c.FlushInterval <= 0 {
		errs = append(errs, fmt.Errorf("flush_interval %v: must be positive", c.FlushInterval))
	}
	if c.MaxRows <= 0 {
		errs = append(errs, fmt.Errorf("max_rows %d: must be positive", c.MaxRows))
	}
	if c.MaintainInterval < 0 {
		errs = append(errs, fmt.Errorf("maintain_interval %v: must not be negative", c.MaintainInterval))
	}
	if c.CheckpointInterval <= 0 {
		errs = append(errs, fmt.Errorf("checkpoint_interval %d: must be positive", c.CheckpointInterval))
	}
	return errors.Join(errs...)
}
