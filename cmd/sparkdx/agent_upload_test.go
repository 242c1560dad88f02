package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentUploadSecrets: credentials an agent cannot use stop it with a
// message that says which variable is wrong and never shows its value.
func TestAgentUploadSecrets(t *testing.T) {
	node := filepath.Join("..", "..", "internal", "agent", "testdata", "node1")
	tests := []struct {
		name, url, env, secret, want string
	}{
		{"azure key", "abfss://dumps@acct.dfs.core.windows.net/n", "AZURE_STORAGE_KEY", "not-base64-SECRET-KEY!", "AZURE_STORAGE_KEY"},
		{"connection string", "wasbs://dumps@acct.blob.core.windows.net/n", "AZURE_STORAGE_CONNECTION_STRING", "AccountName=a;AccountKey=SECRET-CS-KEY;Bogus", "AZURE_STORAGE_CONNECTION_STRING"},
		{"az without account", "az://dumps/n", "AZURE_STORAGE_SAS_TOKEN", "sv=1&sig=SECRET-SIG", "AZURE_STORAGE_ACCOUNT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AZURE_STORAGE_ACCOUNT", "")
			t.Setenv(tt.env, tt.secret)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"agent", "--once", "--heap-dump-at", "0.9", "--heap-dump-dir", t.TempDir(), "--heap-dump-upload", tt.url,
				"--proc", filepath.Join(node, "proc"), "--cgroup", filepath.Join(node, "sys", "fs", "cgroup")}, nil, &stdout, &stderr)
			out := stdout.String() + stderr.String()
			if code == 0 || !strings.Contains(out, tt.want) {
				t.Fatalf("got exit %d, output %q; want a failure naming %s", code, out, tt.want)
			}
			if strings.Contains(out, "SECRET") {
				t.Errorf("output %q shows the secret", out)
			}
		})
	}
}
