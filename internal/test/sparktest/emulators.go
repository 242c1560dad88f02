package sparktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Azurite is a running Azurite Blob service (Microsoft's Azure Storage
// emulator) with its well-known development account.
type Azurite struct {
	Addr    string // 127.0.0.1:port
	Account string
	Key     string
}

// AzuriteKey is the development account's key every Azurite accepts,
// published by Microsoft.
const AzuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// StartAzurite runs azurite-blob (npm's azurite, linked into the cache's
// bin/ by .ci/install) on 127.0.0.1 in memory, stopped when the test ends.
// A missing azurite fails in CI and skips elsewhere.
func StartAzurite(t testing.TB) Azurite {
	t.Helper()
	bin := Program(t, "azurite-blob")
	a := Azurite{Addr: FreeAddr(t), Account: "devstoreaccount1", Key: AzuriteKey}
	host, port, _ := strings.Cut(a.Addr, ":")
	startServer(t, "azurite", exec.Command(bin, "--blobHost", host, "--blobPort", port, "--inMemoryPersistence", "--skipApiVersionCheck", "--silent"),
		func() bool {
			// Any answer is life: the anonymous listing is refused.
			resp, err := http.Get("http://" + a.Addr + "/" + a.Account + "?comp=list")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil
		})
	return a
}

// ConnectionString names a's account, key and Blob endpoint; key replaces
// the account's key when not empty (a wrong credential).
func (a Azurite) ConnectionString(key string) string {
	if key == "" {
		key = a.Key
	}
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=http://%s/%s;", a.Account, key, a.Addr, a.Account)
}

// FakeGCS is a running fake-gcs-server, a Google Cloud Storage emulator
// speaking the JSON API.
type FakeGCS struct {
	URL string // http://127.0.0.1:port
}

// StartFakeGCS runs fake-gcs-server (built into the cache's bin/ by
// .ci/install) on 127.0.0.1 in memory, stopped when the test ends.
func StartFakeGCS(t testing.TB) FakeGCS {
	t.Helper()
	bin := Program(t, "fake-gcs-server")
	addr := FreeAddr(t)
	g := FakeGCS{URL: "http://" + addr}
	_, port, _ := strings.Cut(addr, ":")
	startServer(t, "fake-gcs-server", exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", port, "-backend", "memory",
		"-external-url", g.URL, "-public-host", addr, "-log-level", "error"),
		func() bool {
			resp, err := http.Get(g.URL + "/storage/v1/b")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil && resp.StatusCode == http.StatusOK
		})
	return g
}

// Bucket makes bucket on g.
func (g FakeGCS) Bucket(t testing.TB, bucket string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"name": bucket})
	g.do(t, http.MethodPost, "/storage/v1/b", bytes.NewReader(body))
}

// Object returns the content of object in bucket.
func (g FakeGCS) Object(t testing.TB, bucket, object string) []byte {
	t.Helper()
	return g.do(t, http.MethodGet, "/download/storage/v1/b/"+bucket+"/o/"+object+"?alt=media", nil)
}

// Objects lists the names of bucket's objects.
func (g FakeGCS) Objects(t testing.TB, bucket string) []string {
	t.Helper()
	var list struct {
		Items []struct{ Name string } `json:"items"`
	}
	if err := json.Unmarshal(g.do(t, http.MethodGet, "/storage/v1/b/"+bucket+"/o", nil), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range list.Items {
		names = append(names, it.Name)
	}
	return names
}

func (g FakeGCS) do(t testing.TB, method, path string, body io.Reader) []byte {
	t.Helper()
	req, err := http.NewRequest(method, g.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s %v: %s", method, path, resp.Status, err, b)
	}
	return b
}

// startServer starts cmd, stopped when the test ends, and waits up to a
// minute for ready.
func startServer(t testing.TB, name string, cmd *exec.Cmd, ready func() bool) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for !ready() {
		select {
		case <-exited:
			t.Fatalf("%s exited: %s", name, out.String())
		case <-ctx.Done():
			t.Fatalf("%s not ready within a minute: %s", name, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
