package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/minio/minio-go/v7"

	"github.com/sparkdx/sparkdx/internal/azure"
	"github.com/sparkdx/sparkdx/internal/gcs"
	"github.com/sparkdx/sparkdx/internal/s3"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// TestDumpStoreScheme: each upload URL picks its store; others are refused
// before any client is made.
func TestDumpStoreScheme(t *testing.T) {
	tests := []struct {
		url  string
		want string // the store's type; "" : refused
	}{
		{"s3://dumps/node-1", "*agent.s3Store"},
		{"s3a://dumps", "*agent.s3Store"},
		{"abfss://dumps@acct.dfs.core.windows.net/node-1", "*agent.azureStore"},
		{"wasbs://dumps@acct.blob.core.windows.net/", "*agent.azureStore"},
		{"az://dumps/node-1", "*agent.azureStore"},
		{"gs://dumps/node-1", "*agent.gcsStore"},
		{"gs://", ""},
		{"abfss://acct.dfs.core.windows.net/p", ""},
		{"az:///node-1", ""},
		{"hdfs://nn/dumps", ""},
		{"/var/dumps", ""},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			st, err := newDumpStore(tt.url, Stores{Azure: azure.Config{Account: "acct", Key: "a2V5"}})
			got := ""
			if err == nil {
				got = fmt.Sprintf("%T", st)
			}
			if got != tt.want {
				t.Fatalf("got %q (%v), want %q", got, err, tt.want)
			}
			if verr := validUploadURL(tt.url); (verr == nil) != (tt.want != "") {
				t.Errorf("validUploadURL: %v", verr)
			}
		})
	}
}

// backend is one object store's emulator as the kill test drives it.
type backend struct {
	url      string
	upstream string // the emulator's host:port
	// env points a child's store at addr (the proxy) through the
	// store's standard environment.
	env func(addr string) []string
	// stores reaches the emulator itself.
	stores Stores
	// objects lists the container's objects; read returns one's bytes.
	objects func(t *testing.T) []string
	read    func(t *testing.T, key string) []byte
	// pending, when the store can say, counts the blobs with parts
	// uploaded and not committed.
	pending func(t *testing.T) int
}

// emulatedStore names an object store's emulator and starts it.
type emulatedStore struct {
	name  string
	start func(*testing.T) backend
}

func emulatedStores() []emulatedStore {
	return []emulatedStore{{"minio", minioBackend}, {"azurite", azuriteBackend}, {"fake-gcs-server", fakeGCSBackend}}
}

func azuriteBackend(t *testing.T) backend {
	a := sparktest.StartAzurite(t)
	c, err := azblob.NewClientFromConnectionString(a.ConnectionString(""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateContainer(context.Background(), "dumps", nil); err != nil {
		t.Fatal(err)
	}
	viaProxy := func(addr string) string { return strings.ReplaceAll(a.ConnectionString(""), a.Addr, addr) }
	return backend{
		url:      "abfss://dumps@devstoreaccount1.dfs.core.windows.net/node-1",
		upstream: a.Addr,
		env:      func(addr string) []string { return []string{"AZURE_STORAGE_CONNECTION_STRING=" + viaProxy(addr)} },
		stores:   Stores{Azure: azure.Config{ConnectionString: a.ConnectionString("")}},
		objects: func(t *testing.T) []string {
			var names []string
			pager := c.NewListBlobsFlatPager("dumps", nil)
			for pager.More() {
				page, err := pager.NextPage(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range page.Segment.BlobItems {
					names = append(names, *b.Name)
				}
			}
			return names
		},
		pending: func(t *testing.T) int {
			opts := &azblob.ListBlobsFlatOptions{Include: container.ListBlobsInclude{UncommittedBlobs: true}}
			page, err := c.NewListBlobsFlatPager("dumps", opts).NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return len(page.Segment.BlobItems)
		},
		read: func(t *testing.T, key string) []byte {
			resp, err := c.DownloadStream(context.Background(), "dumps", key, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return b
		},
	}
}

func fakeGCSBackend(t *testing.T) backend {
	g := sparktest.StartFakeGCS(t)
	g.Bucket(t, "dumps")
	return backend{
		url:      "gs://dumps/node-1",
		upstream: strings.TrimPrefix(g.URL, "http://"),
		env:      func(addr string) []string { return []string{"STORAGE_EMULATOR_HOST=" + addr} },
		stores:   Stores{GCS: gcs.Config{Endpoint: g.URL, NoAuth: true, ChunkSize: 1 << 20}},
		objects:  func(t *testing.T) []string { return g.Objects(t, "dumps") },
		read: func(t *testing.T, key string) []byte {
			return g.Object(t, "dumps", strings.ReplaceAll(key, "/", "%2F"))
		},
	}
}

func minioBackend(t *testing.T) backend {
	m := sparktest.StartMinIO(t)
	c := m.Bucket(t, "dumps")
	cfg := s3.Config{Endpoint: "http://" + m.Addr, AccessKey: m.AccessKey, SecretKey: m.SecretKey, PathStyle: true}
	return backend{
		url:      "s3://dumps/node-1",
		upstream: m.Addr,
		env: func(addr string) []string {
			return []string{"AWS_ENDPOINT_URL_S3=http://" + addr, "AWS_ACCESS_KEY_ID=" + m.AccessKey, "AWS_SECRET_ACCESS_KEY=" + m.SecretKey, "AWS_REGION=us-east-1"}
		},
		stores: Stores{S3: cfg},
		objects: func(t *testing.T) []string {
			var names []string
			for o := range c.ListObjects(context.Background(), "dumps", minio.ListObjectsOptions{Recursive: true}) {
				if o.Err != nil {
					t.Fatal(o.Err)
				}
				names = append(names, o.Key)
			}
			return names
		},
		read: func(t *testing.T, key string) []byte {
			o, err := c.GetObject(context.Background(), "dumps", key, minio.GetObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			b, _ := io.ReadAll(o)
			return b
		},
	}
}

// TestUploadKilled: for each store's real emulator, a multi-MB dump whose
// upload is killed midway (the uploading process gets SIGKILL once several
// chunks are in) leaves no object; then the same store, in this process,
// puts the whole dump, which reads back byte for byte under the URL put
// returned — the listing that showed nothing shows it.
func TestUploadKilled(t *testing.T) {
	sparktest.Live(t)
	file := filepath.Join(t.TempDir(), "java_pid42.hprof")
	want := make([]byte, 8<<20)
	rand.Read(want)
	if err := os.WriteFile(file, want, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range emulatedStores() {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.start(t)
			killMidUpload(t, b, file)
			if got := b.objects(t); len(got) != 0 {
				t.Fatalf("got objects %q after the kill, want none", got)
			}
			if b.pending != nil {
				if n := b.pending(t); n != 1 {
					t.Fatalf("got %d blobs with uncommitted blocks, want 1: the kill came before any block was in", n)
				}
			}
			st, err := newDumpStore(b.url, b.stores)
			if err != nil {
				t.Fatal(err)
			}
			url, err := st.put(context.Background(), file)
			if wantURL := b.url + "/java_pid42.hprof"; err != nil || url != wantURL {
				t.Fatalf("put: got %q, %v; want %s", url, err, wantURL)
			}
			if got := b.objects(t); len(got) != 1 || got[0] != "node-1/java_pid42.hprof" {
				t.Fatalf("got objects %q, want [node-1/java_pid42.hprof]", got)
			}
			if got := b.read(t, "node-1/java_pid42.hprof"); !bytes.Equal(got, want) {
				t.Fatalf("read back %d bytes, equal %v; want the %d bytes of the dump", len(got), bytes.Equal(got, want), len(want))
			}
		})
	}
}

// killMidUpload runs TestUploadChild in a child process whose store
// reaches b through a proxy that stops forwarding after 3.5 MiB, and kills
// the child there.
func killMidUpload(t *testing.T, b backend, file string) {
	t.Helper()
	p := startStallProxy(t, b.upstream, 7<<19)
	cmd := exec.Command(os.Args[0], "-test.run=^TestUploadChild$", "-test.v")
	cmd.Env = append(os.Environ(), append(b.env(p.addr), "SPARKDX_UPLOAD_CHILD="+b.url, "SPARKDX_UPLOAD_FILE="+file)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.stalled:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the upload did not send 3.5 MiB within 30 s (%d bytes sent): %s", p.sent.Load(), out.String())
	}
	cmd.Process.Kill()
	if err := cmd.Wait(); err == nil || strings.Contains(out.String(), "upload ended") {
		t.Fatalf("the child ended before the kill (%v): %s", err, out.String())
	}
}

// TestUploadChild is the uploading process TestUploadKilled kills: its
// store comes from the environment, as the agent's command line makes it.
func TestUploadChild(t *testing.T) {
	url := os.Getenv("SPARKDX_UPLOAD_CHILD")
	if url == "" {
		t.Skip("the child of TestUploadKilled")
	}
	st, err := newDumpStore(url, Stores{S3: s3.Config{PathStyle: true}.WithEnv(nil), Azure: azure.Config{}.WithEnv(nil),
		GCS: gcs.Config{ChunkSize: 1 << 20}.WithEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := st.(*azureStore); ok {
		a.blockSize = 1 << 20
	}
	_, err = st.put(context.Background(), os.Getenv("SPARKDX_UPLOAD_FILE"))
	t.Fatalf("upload ended (%v); the parent was to kill it midway", err)
}

// stallProxy forwards HTTP requests to an upstream until limit bytes of
// request bodies went up, then holds every body there: the client hangs
// mid-request. Session URIs the upstream hands out (Cloud Storage's
// resumable uploads) are rewritten to come back through it.
type stallProxy struct {
	addr    string
	sent    atomic.Int64
	limit   int64
	stalled chan struct{}
	once    sync.Once
	done    chan struct{}
}

func startStallProxy(t *testing.T, upstream string, limit int64) *stallProxy {
	t.Helper()
	p := &stallProxy{limit: limit, stalled: make(chan struct{}), done: make(chan struct{})}
	target := &url.URL{Scheme: "http", Host: upstream}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // the stalled requests
	rp.ModifyResponse = func(resp *http.Response) error {
		if loc := resp.Header.Get("Location"); loc != "" {
			resp.Header.Set("Location", strings.Replace(loc, upstream, p.addr, 1))
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The Host the client signed (S3's SigV4) goes up unchanged.
		r.Body = &stallBody{r: r.Body, p: p, ctx: r.Context()}
		rp.ServeHTTP(w, r)
	}))
	p.addr = srv.Listener.Addr().String()
	t.Cleanup(func() { close(p.done); srv.CloseClientConnections(); srv.Close() })
	return p
}

type stallBody struct {
	r   io.ReadCloser
	p   *stallProxy
	ctx context.Context
}

func (b *stallBody) Read(buf []byte) (int, error) {
	if b.p.sent.Load() >= b.p.limit {
		b.p.once.Do(func() { close(b.p.stalled) })
		select {
		case <-b.ctx.Done():
		case <-b.p.done:
		}
		return 0, errors.New("stalled")
	}
	n, err := b.r.Read(buf[:min(len(buf), int(b.p.limit-b.p.sent.Load()))])
	b.p.sent.Add(int64(n))
	return n, err
}

func (b *stallBody) Close() error { return b.r.Close() }
