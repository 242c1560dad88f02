package otlp

import (
	"fmt"
	"strconv"
)

// FromEnv reads a Config from the OpenTelemetry SDK's standard variables
// (what the Helm chart sets for sparkdx serve): OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_TRACES_SAMPLER_ARG (with a traceidratio
// sampler), OTEL_SERVICE_NAME, and SPARKDX_OTLP_TASK_SAMPLING_RATIO. ok is
// false when no endpoint is set. getenv is os.Getenv in main.
func FromEnv(getenv func(string) string) (cfg Config, ok bool, err error) {
	cfg = Config{Endpoint: getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), Protocol: getenv("OTEL_EXPORTER_OTLP_PROTOCOL"),
		ServiceName: getenv("OTEL_SERVICE_NAME")}
	if cfg.Endpoint == "" {
		return cfg, false, nil
	}
	ratio := func(name string) (float64, error) {
		v := getenv(name)
		if v == "" {
			return 0, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("otlp: %s=%q: %w", name, v, err)
		}
		return f, nil
	}
	switch getenv("OTEL_TRACES_SAMPLER") {
	case "", "traceidratio", "parentbased_traceidratio":
		if cfg.SamplingRatio, err = ratio("OTEL_TRACES_SAMPLER_ARG"); err != nil {
			return cfg, true, err
		}
	case "always_off", "parentbased_always_off":
		cfg.SamplingRatio = 1e-300 // nothing but what a sampled traceparent asks for
	}
	if cfg.TaskSamplingRatio, err = ratio("SPARKDX_OTLP_TASK_SAMPLING_RATIO"); err != nil {
		return cfg, true, err
	}
	return cfg, true, cfg.Validate()
}
