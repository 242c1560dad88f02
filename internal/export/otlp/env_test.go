package otlp

import "testing"

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    Config
		ok, bad bool
	}{
		{"unset", map[string]string{}, Config{}, false, false},
		{"helm chart values", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
			"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5", "OTEL_SERVICE_NAME": "s",
			"SPARKDX_OTLP_TASK_SAMPLING_RATIO": "0.01"},
			Config{Endpoint: "http://c:4318", Protocol: "http/protobuf", SamplingRatio: 0.5, TaskSamplingRatio: 0.01, ServiceName: "s"}, true, false},
		{"bad ratio", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "c:4317", "OTEL_TRACES_SAMPLER_ARG": "half"}, Config{}, true, true},
		{"ratio out of range", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "c:4317", "OTEL_TRACES_SAMPLER_ARG": "2"}, Config{}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := FromEnv(func(k string) string { return tc.env[k] })
			if ok != tc.ok || (err != nil) != tc.bad {
				t.Fatalf("got ok=%v err=%v, want ok=%v error=%v", ok, err, tc.ok, tc.bad)
			}
			if !tc.bad && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
