package s3

import "testing"

func TestConfigWithEnv(t *testing.T) {
	env := map[string]string{
		"AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_REGION": "eu-west-1",
		"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
	}
	got := Config{Region: "us-east-1"}.WithEnv(func(k string) string { return env[k] })
	want := Config{Endpoint: "http://127.0.0.1:9000", Region: "us-east-1", AccessKey: "id", SecretKey: "secret"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// An explicit access key is not mixed with the environment's secret.
	got = Config{AccessKey: "mine"}.WithEnv(func(k string) string { return env[k] })
	if got.SecretKey != "" {
		t.Errorf("got secret %q with an explicit access key, want none", got.SecretKey)
	}
	// The S3-specific endpoint wins over the general one.
	env["AWS_ENDPOINT_URL_S3"] = "http://s3only:9000"
	if got := (Config{}).WithEnv(func(k string) string { return env[k] }); got.Endpoint != "http://s3only:9000" {
		t.Errorf("endpoint %q, want AWS_ENDPOINT_URL_S3's", got.Endpoint)
	}
}

func TestConfigEndpoint(t *testing.T) {
	tests := []struct {
		cfg     Config
		host    string
		secure  bool
		wantErr bool
	}{
		{Config{}, "s3.amazonaws.com", true, false},
		{Config{Endpoint: "http://127.0.0.1:9000"}, "127.0.0.1:9000", false, false},
		{Config{Endpoint: "https://s3.example.com/"}, "s3.example.com", true, false},
		{Config{Endpoint: "minio:9000", Insecure: true}, "minio:9000", false, false},
		{Config{Endpoint: "ftp://x"}, "", false, true},
		{Config{Endpoint: "http://x/bucket"}, "", false, true},
	}
	for _, tt := range tests {
		host, secure, err := tt.cfg.endpoint()
		if host != tt.host || secure != tt.secure || (err != nil) != tt.wantErr {
			t.Errorf("%+v: got %q, %v, %v; want %q, %v, error %v", tt.cfg, host, secure, err, tt.host, tt.secure, tt.wantErr)
		}
	}
}

func TestNewClient(t *testing.T) {
	tests := []struct {
		cfg     Config
		url     string
		wantErr bool
	}{
		{Config{}, "https://s3.amazonaws.com", false},
		{Config{Endpoint: "http://127.0.0.1:9000", PathStyle: true}, "http://127.0.0.1:9000", false},
		{Config{Endpoint: "minio:9000", Insecure: true}, "http://minio:9000", false},
		{Config{Endpoint: "ftp://x"}, "", true},
	}
	for _, tt := range tests {
		c, err := NewClient(tt.cfg)
		if (err != nil) != tt.wantErr {
			t.Errorf("%+v: got error %v, want error %v", tt.cfg, err, tt.wantErr)
			continue
		}
		if err == nil && c.EndpointURL().String() != tt.url {
			t.Errorf("%+v: got endpoint %s, want %s", tt.cfg, c.EndpointURL(), tt.url)
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct{ in, bucket, key string }{
		{"s3://b", "b", ""},
		{"s3://b/", "b", ""},
		{"s3://b/dir/", "b", "dir"},
		{"s3://b/dir/app-1.lz4", "b", "dir/app-1.lz4"},
		{"s3a://b/spark-logs", "b", "spark-logs"},
		{"s3n://b/", "b", ""},
	}
	for _, tt := range tests {
		b, k, err := Split(tt.in)
		if b != tt.bucket || k != tt.key || err != nil {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q", tt.in, b, k, err, tt.bucket, tt.key)
		}
		if !IsURL(tt.in) {
			t.Errorf("IsURL(%q) = false", tt.in)
		}
	}
	for _, bad := range []string{"s3://", "s3:///key", "/local", "gs://b/k", "S3://b/k"} {
		if _, _, err := Split(bad); err == nil {
			t.Errorf("Split(%q): got no error", bad)
		}
	}
	if IsURL("/local/s3://x") || IsURL("gs://b") {
		t.Error("IsURL accepted a non-S3 name")
	}
	if got := URL("b", "dir/x"); got != "s3://b/dir/x" {
		t.Errorf("URL = %q", got)
	}
}
