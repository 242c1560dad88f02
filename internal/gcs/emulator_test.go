package gcs

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestFakeGCS runs the uploads against one real fake-gcs-server.
func TestFakeGCS(t *testing.T) {
	g := sparktest.StartFakeGCS(t)
	g.Bucket(t, "dumps")
	t.Run("upload", func(t *testing.T) {
		// 5 MiB and a bit in 1 MiB chunks: six requests, the last short.
		want := random(5<<20 + 123)
		c := NewClient(Config{Endpoint: g.URL, NoAuth: true, ChunkSize: 1 << 20})
		if err := c.Upload(context.Background(), "dumps", "node-1/java_pid42.hprof", bytes.NewReader(want), int64(len(want)), "application/vnd.java.hprof"); err != nil {
			t.Fatal(err)
		}
		if got := g.Object(t, "dumps", "node-1%2Fjava_pid42.hprof"); !bytes.Equal(got, want) {
			t.Fatalf("got %d bytes back, equal %v; want the %d bytes uploaded", len(got), bytes.Equal(got, want), len(want))
		}
	})
	t.Run("wrong credentials", func(t *testing.T) { wrongCredentials(t, g) })
}

// wrongCredentials: a service-account key the token endpoint refuses, or a
// credentials file that is not there, fail the upload before any byte is
// sent, saying so, and never quoting the key.
func wrongCredentials(t *testing.T, g sparktest.FakeGCS) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`))
	}))
	defer tokens.Close()
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "p", "private_key_id": "k1", "private_key": keyPEM,
		"client_email": "dumps@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokens.URL})
	saFile := filepath.Join(t.TempDir(), "sa.json")
	os.WriteFile(saFile, sa, 0o600)
	dump := random(1 << 10)
	tests := []struct{ name, creds, want string }{
		{"refused key", saFile, "invalid_grant"},
		{"no file", filepath.Join(t.TempDir(), "missing.json"), "missing.json: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", tt.creds)
			c := NewClient(Config{Endpoint: g.URL, Retries: 1})
			err := c.Upload(context.Background(), "dumps", "wrong.hprof", bytes.NewReader(dump), int64(len(dump)), "application/vnd.java.hprof")
			if err == nil || !strings.Contains(err.Error(), "gcs credentials") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a gcs credentials error with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "PRIVATE KEY") || strings.Contains(err.Error(), keyPEM[40:80]) {
				t.Errorf("error %q quotes the key", err)
			}
			t.Log(err)
		})
	}
	if names := g.Objects(t, "dumps"); strings.Contains(strings.Join(names, " "), "wrong") {
		t.Errorf("got objects %v, want none from the refused uploads", names)
	}
}
