package sparksinksreceiver

import (
	"errors"
	"fmt"
	"time"

	"github.com/sparkdx/sparkdx/internal/sinks"
)

// Config is the receiver's configuration:
//
//	receivers:
//	  sparksinks:
//	    graphite_endpoint: 0.0.0.0:2003  # Spark's GraphiteSink, protocol tcp; "" for none
//	    statsd_endpoint: 0.0.0.0:8125    # Spark's StatsdSink (UDP); "" for none
//	    max_line_bytes: 1024              # longer lines are discarded unread
//	    max_connections: 64               # GraphiteSink connections open at once
//	    idle_timeout: 2m                  # a silent connection is closed
//	    max_batch: 20000                  # data points per batch sent down the pipeline
//
// At least one endpoint is required. The bounds' zero values take the
// defaults above (those of sparkdx serve's --graphite-listen and
// --statsd-listen, which share the receiving code).
type Config struct {
	GraphiteEndpoint string        `mapstructure:"graphite_endpoint"`
	StatsdEndpoint   string        `mapstructure:"statsd_endpoint"`
	MaxLineBytes     int           `mapstructure:"max_line_bytes"`
	MaxConnections   int           `mapstructure:"max_connections"`
	IdleTimeout      time.Duration `mapstructure:"idle_timeout"`
	MaxBatch         int           `mapstructure:"max_batch"`
}

// Validate is called by the collector before the pipeline starts.
func (c *Config) Validate() error {
	if c.IdleTimeout < 0 {
		return errors.New("idle_timeout is negative")
	}
	if err := c.sinks().Validate(); err != nil {
		return fmt.Errorf("sparksinks: %w", err)
	}
	return nil
}

// sinks is the receiving code's configuration; the sink and logger are the
// receiver's to set.
func (c *Config) sinks() sinks.Config {
	return sinks.Config{
		GraphiteAddr: c.GraphiteEndpoint,
		StatsdAddr:   c.StatsdEndpoint,
		MaxLineBytes: c.MaxLineBytes,
		MaxConns:     c.MaxConnections,
		IdleTimeout:  c.IdleTimeout,
		MaxBatch:     c.MaxBatch,
	}
}
