package gcs

import "testing"

func TestSplit(t *testing.T) {
	tests := []struct{ in, bucket, prefix string }{
		{"gs://dumps", "dumps", ""},
		{"gs://dumps/", "dumps", ""},
		{"gs://dumps/node-1/heap/", "dumps", "node-1/heap"},
	}
	for _, tt := range tests {
		b, p, err := Split(tt.in)
		if err != nil || b != tt.bucket || p != tt.prefix || !IsURL(tt.in) {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q", tt.in, b, p, err, tt.bucket, tt.prefix)
		}
	}
	for _, bad := range []string{"gs://", "gs:///p", "s3://b/p", "gcs://b"} {
		if _, _, err := Split(bad); err == nil {
			t.Errorf("Split(%q): no error", bad)
		}
	}
}

func TestWithEnv(t *testing.T) {
	tests := []struct {
		env  string
		in   Config
		want Config
	}{
		{"", Config{}, Config{}},
		{"127.0.0.1:4443", Config{}, Config{Endpoint: "http://127.0.0.1:4443", NoAuth: true}},
		{"https://gcs.test", Config{}, Config{Endpoint: "https://gcs.test", NoAuth: true}},
		{"127.0.0.1:4443", Config{Endpoint: "https://mine"}, Config{Endpoint: "https://mine"}},
	}
	for _, tt := range tests {
		got := tt.in.WithEnv(func(k string) string {
			if k == "STORAGE_EMULATOR_HOST" {
				return tt.env
			}
			return ""
		})
		if got != tt.want {
			t.Errorf("STORAGE_EMULATOR_HOST=%q: got %+v, want %+v", tt.env, got, tt.want)
		}
	}
}
