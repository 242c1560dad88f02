package azure

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// azuriteClient returns a client of a's account and makes container.
func azuriteClient(t *testing.T, a sparktest.Azurite, container string) *service.Client {
	t.Helper()
	loc := Location{Scheme: "abfss", Account: a.Account, Suffix: "core.windows.net", Container: container}
	c, err := NewClient(loc, Config{ConnectionString: a.ConnectionString("")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateContainer(context.Background(), container, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAzurite runs the uploads against one real Azurite (its start takes
// seconds).
func TestAzurite(t *testing.T) {
	a := sparktest.StartAzurite(t)
	c := azuriteClient(t, a, "dumps")
	t.Run("upload", func(t *testing.T) { uploadAzurite(t, c) })
	t.Run("wrong credentials", func(t *testing.T) { wrongCredentials(t, a) })
}

// uploadAzurite: a multi-MB file lands in a real Azurite byte for byte, as
// blocks of the asked size committed at once, with its type.
func uploadAzurite(t *testing.T, c *service.Client) {
	want := random(5<<20 + 123)
	loc, err := Parse("abfss://dumps@devstoreaccount1.dfs.core.windows.net/node-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Upload(ctx, c, loc, "node-1/java_pid42.hprof", bytes.NewReader(want), int64(len(want)), "application/vnd.java.hprof", 1<<20, Config{}); err != nil {
		t.Fatal(err)
	}
	bb := c.NewContainerClient("dumps").NewBlockBlobClient("node-1/java_pid42.hprof")
	resp, err := bb.DownloadStream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes (%v), equal %v; want the %d bytes uploaded", len(got), err, bytes.Equal(got, want), len(want))
	}
	if ct := *resp.ContentType; ct != "application/vnd.java.hprof" {
		t.Errorf("got content type %q, want application/vnd.java.hprof", ct)
	}
	list, err := bb.GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.CommittedBlocks); n != 6 || len(list.UncommittedBlocks) != 0 {
		t.Errorf("got %d committed, %d uncommitted blocks; want 6 (5 MiB + 123 bytes in 1 MiB blocks), 0", n, len(list.UncommittedBlocks))
	}
}

// wrongCredentials: a wrong key or SAS token is refused by Azurite with a
// message naming the refusal and not the secret; so is a transport
// failure.
func wrongCredentials(t *testing.T, a sparktest.Azurite) {
	dump := random(1 << 10)
	wrong := make([]byte, 64)
	rand.Read(wrong)
	wrongKey := base64.StdEncoding.EncodeToString(wrong)
	sas := "sv=2024-08-04&ss=b&srt=sco&sp=rwc&se=2099-01-01T00:00:00Z&sig=SIGSECRET0123"
	closed := sparktest.FreeAddr(t)
	tests := []struct {
		name, conn, secret, want string
	}{
		{"key", a.ConnectionString(wrongKey), wrongKey, "403"},
		{"sas", "BlobEndpoint=http://" + a.Addr + "/" + a.Account + ";SharedAccessSignature=" + sas, "SIGSECRET0123", "403"},
		{"unreachable", "BlobEndpoint=http://" + closed + "/" + a.Account + ";SharedAccessSignature=" + sas, "SIGSECRET0123", "connection refused"},
	}
	loc := Location{Scheme: "az", Container: "dumps"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{ConnectionString: tt.conn, Retries: 1}
			c, err := NewClient(loc, cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = Upload(context.Background(), c, loc, "x.hprof", bytes.NewReader(dump), int64(len(dump)), "application/vnd.java.hprof", 0, cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), tt.secret) {
				t.Errorf("error %q carries the secret", err)
			}
			t.Log(err)
		})
	}
}

// random returns n random bytes: a stand-in heap dump no store can shrink.
func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}
