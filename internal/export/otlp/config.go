// Package otlp exports analysed Spark applications over OTLP: one trace per
// application attempt (application, job, stage and sampled task spans, with
// timestamps from the event log and the caller's W3C trace context as
// parent) and a few application metrics. sparkdx analyze --otlp-endpoint
// exports once after the analysis; sparkdx serve exports as applications
// progress and finish.
package otlp

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Protocols an Exporter speaks.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Config is the monitoring.openTelemetry section of sparkdx's settings.
type Config struct {
	// Endpoint is the collector: http://host:4317 (gRPC) or
	// http://host:4318 (HTTP); https:// for TLS. A bare host:port means
	// plain http.
	Endpoint string
	// Protocol is "grpc" (default) or "http/protobuf" ("http" also works).
	Protocol string
	// SamplingRatio is the share of application traces exported, decided
	// per trace id so every span of one application shares the decision.
	// 0 means 1 (everything); a traceparent's sampled flag overrides it.
	SamplingRatio float64
	// TaskSamplingRatio is the share of task attempts exported as spans
	// (failed attempts always are). 0 exports none.
	TaskSamplingRatio float64
	// ServiceName is the resource's service.name (default "sparkdx").
	ServiceName string
	// Timeout bounds one export, retries included (default 10s): a
	// collector that is down must not hold up sparkdx analyze for minutes.
	Timeout time.Duration
}

// Validate reports a setting the exporter cannot use.
func (c Config) Validate() error {
	if _, err := c.endpointURL(); err != nil {
		return err
	}
	switch c.protocol() {
	case ProtocolGRPC, ProtocolHTTP:
	default:
		return fmt.Errorf("otlp: protocol %q: want grpc or http/protobuf", c.Protocol)
	}
	if c.SamplingRatio < 0 || c.SamplingRatio > 1 {
		return fmt.Errorf("otlp: samplingRatio %v: want 0 to 1", c.SamplingRatio)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("otlp: timeout %s: must not be negative", c.Timeout)
	}
	if c.TaskSamplingRatio < 0 || c.TaskSamplingRatio > 1 {
		return fmt.Errorf("otlp: taskSamplingRatio %v: want 0 to 1", c.TaskSamplingRatio)
	}
	return nil
}

func (c Config) protocol() string {
	switch strings.ToLower(c.Protocol) {
	case "", "grpc":
		return ProtocolGRPC
	case "http", "http/protobuf":
		return ProtocolHTTP
	}
	return c.Protocol
}

func (c Config) serviceName() string {
	if c.ServiceName == "" {
		return "sparkdx"
	}
	return c.ServiceName
}

func (c Config) timeout() time.Duration {
	if c.Timeout == 0 {
		return 10 * time.Second
	}
	return c.Timeout
}

func (c Config) samplingRatio() float64 {
	if c.SamplingRatio == 0 {
		return 1
	}
	return c.SamplingRatio
}

// endpointURL parses Endpoint, adding http:// to a bare host:port.
func (c Config) endpointURL() (*url.URL, error) {
	e := strings.TrimSpace(c.Endpoint)
	if e == "" {
		return nil, fmt.Errorf("otlp: endpoint is empty")
	}
	if !strings.Contains(e, "://") {
		e = "http://" + e
	}
	u, err := url.Parse(e)
	if err != nil {
		return nil, fmt.Errorf("otlp: endpoint %q: %w", c.Endpoint, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("otlp: endpoint %q: want http://host:port or https://host:port", c.Endpoint)
	}
	return u, nil
}

// signalURL is the endpoint for one signal ("traces", "metrics"): gRPC
// keeps the host; HTTP gets /v1/<signal> unless a path was given.
func (c Config) signalURL(signal string) string {
	u, _ := c.endpointURL()
	if c.protocol() == ProtocolHTTP {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + signal
	} else {
		u.Path = ""
	}
	return u.String()
}
