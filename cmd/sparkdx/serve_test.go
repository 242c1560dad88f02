package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/server/store"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// buildSparkdx is the binary under test (sparktest.Binary: built once per
// make test and shared).
func buildSparkdx(t testing.TB) string {
	t.Helper()
	return sparktest.Binary(t)
}

// serveProc is a running `sparkdx serve` child process.
type serveProc struct {
	cmd  *exec.Cmd
	url  string
	logs *sparktest.SyncBuffer // serve's output, written by exec's copier while the test reads it
}

func startServe(t testing.TB, bin, logs, data string, extra ...string) *serveProc {
	t.Helper()
	addr := sparktest.FreeAddr(t)
	args := append([]string{"serve", "--event-logs", logs, "--data", data, "--listen", addr, "--poll", "100ms"}, extra...)
	cmd := exec.Command(bin, args...)
	out := &sparktest.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, url: "http://" + addr, logs: out}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return p
}

func (p *serveProc) status(t *testing.T) (map[string]any, bool) {
	resp, err := http.Get(p.url + "/api/sparkdx/v1/status")
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	var st map[string]any
	if json.NewDecoder(resp.Body).Decode(&st) != nil {
		return nil, false
	}
	return st, true
}

// waitIdle waits for a scan with nothing queued or in flight, three polls running.
func (p *serveProc) waitIdle(t *testing.T) map[string]any {
	t.Helper()
	calm := 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		st, ok := p.status(t)
		if ok && st["scanned"] == true && st["queueDepth"].(float64) == 0 && st["inFlight"].(float64) == 0 {
			if calm++; calm >= 3 {
				return st
			}
		} else {
			calm = 0
		}
	}
	t.Fatalf("serve not idle after 60s; output:\n%s", p.logs)
	return nil
}

func (p *serveProc) get(t *testing.T, path string) []byte {
	t.Helper()
	resp, err := http.Get(p.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

// appIDField is a log's "App ID" field and its value.
var appIDField = regexp.MustCompile(`"App ID":"([^"]+)"`)

// fleetFixture writes copies of every single-file log in spark-events
// under new application ids, so ingest has enough work to be killed in.
func fleetFixture(t testing.TB, copies int) (dir string, sizes map[string]int64) {
	t.Helper()
	src := sparktest.Path(t, "spark-events")
	dir = t.TempDir()
	sizes = map[string]int64{}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSuffix(strings.TrimSuffix(e.Name(), "_1"), "_2")
		for i := range copies {
			newID := fmt.Sprintf("%s%03d", id, i)
			name := strings.Replace(e.Name(), id, newID, 1)
			b := bytes.ReplaceAll(data, []byte(id), []byte(newID))
			// A log whose application id is not its name (an attempt
			// of another log's application) gets the copy's number
			// too: copies of one attempt would be one application
			// (serve shows the last changed of them).
			if m := appIDField.FindSubmatch(b); m != nil && !bytes.Contains(m[1], []byte(newID)) {
				b = bytes.ReplaceAll(b, m[0], []byte(fmt.Sprintf(`"App ID":"%s%03d"`, m[1], i)))
			}
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			sizes[p] = int64(len(b))
		}
	}
	return dir, sizes
}

// appsDigest is the fleet list with what identifies each attempt and its results.
func appsDigest(t *testing.T, b []byte) []string {
	var apps []struct {
		ID, AttemptID, Name, Status string
		DurationMs                  int64
		Stages, Tasks               int
		Events                      int64
		Findings                    []struct{ Rule, Severity string }
	}
	if err := json.Unmarshal(b, &apps); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range apps {
		out = append(out, fmt.Sprintf("%s/%s %s %s %d %d %d %d %v", a.ID, a.AttemptID, a.Name, a.Status, a.DurationMs,
			a.Stages, a.Tasks, a.Events, a.Findings))
	}
	sort.Strings(out)
	return out
}

// TestServeKill9 kills `sparkdx serve` with SIGKILL during ingest, several
// times, restarting it on the same store each time: in the end every
// application is present once with the results of an uninterrupted run,
// and each restart re-read exactly the logs that had no stored analysis.
func TestServeKill9(t *testing.T) {
	bin := buildSparkdx(t)
	logs, sizes := fleetFixture(t, 12)

	clean := startServe(t, bin, logs, t.TempDir())
	clean.waitIdle(t)
	want := appsDigest(t, clean.get(t, "/api/sparkdx/v1/apps"))
	wantReport := clean.get(t, "/api/sparkdx/v1/apps/app-20200706201101-0003005/report")
	clean.cmd.Process.Kill()
	clean.cmd.Wait()
	if len(want) != len(sizes) {
		t.Fatalf("clean run: %d attempts, want %d", len(want), len(sizes))
	}

	// Kill during ingest again and again on one store; after each kill,
	// a copy of the store must finish like an uninterrupted run while
	// reading exactly the logs that had no stored analysis.
	data := t.TempDir()
	partial := 0
	for round := 0; round < 4; round++ {
		p := startServe(t, bin, logs, data)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, ok := p.status(t); ok {
				break
			}
		}
		time.Sleep(120 * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		p.cmd.Wait()

		done, unread := storeState(t, data, sizes)
		if done > 0 && done < len(sizes) {
			partial++
		}
		t.Logf("round %d: SIGKILL with %d of %d logs analysed", round, done, len(sizes))

		check := copyDir(t, data)
		v := startServe(t, bin, logs, check)
		st := v.waitIdle(t)
		if got := int64(st["bytesRead"].(float64)); got != unread {
			t.Errorf("round %d: restart read %d bytes, want %d (the logs without a stored analysis)", round, got, unread)
		}
		got := appsDigest(t, v.get(t, "/api/sparkdx/v1/apps"))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("round %d: fleet after restart differs from an uninterrupted run (%d attempts, want %d)", round, len(got), len(want))
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("first difference:\ngot  %s\nwant %s", got[i], want[i])
					break
				}
			}
		}
		if r := v.get(t, "/api/sparkdx/v1/apps/app-20200706201101-0003005/report"); !bytes.Equal(r, wantReport) {
			t.Errorf("round %d: report differs from an uninterrupted run", round)
		}
		v.cmd.Process.Kill()
		v.cmd.Wait()
		if done == len(sizes) {
			break
		}
	}
	if partial == 0 {
		t.Errorf("no SIGKILL landed mid-ingest; the test did not test what it claims")
	}
}

// storeState reads a stopped server's store: how many logs have a stored
// analysis, and the bytes of those that do not.
func storeState(t *testing.T, data string, sizes map[string]int64) (done int, unread int64) {
	t.Helper()
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Logs()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	isDone := map[string]bool{}
	for _, r := range recs {
		if r.Done {
			isDone[r.Path] = true
		}
	}
	for path, size := range sizes {
		if isDone[path] {
			done++
		} else {
			unread += size
		}
	}
	return done, unread
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestServeUsage(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty-token")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no log dir", []string{"serve"}, "usage: sparkdx serve"},
		{"extra argument", []string{"serve", "--event-logs", "/tmp", "x"}, "usage: sparkdx serve"},
		{"bad regex", []string{"serve", "--event-logs", "/tmp", "--redaction-regex", "("}, "--redaction-regex"},
		{"missing profiles dir", []string{"serve", "--event-logs", "/tmp", "--profiles", "/nonexistent/profiles"}, "--profiles"},
		{"missing price file", []string{"serve", "--event-logs", "/tmp", "--price-file", "/nonexistent/prices.yaml"}, "--price-file"},
		{"bad price", []string{"serve", "--event-logs", "/tmp", "--price-core-hour", "-1"}, "--price-core-hour -1"},
		{"missing token file", []string{"serve", "--event-logs", "/tmp", "--auth-token-file", "/nonexistent/token"}, "/nonexistent/token"},
		{"empty token file", []string{"serve", "--event-logs", "/tmp", "--auth-token-file", empty}, "empty"},
		{"bad listen", []string{"serve", "--event-logs", "/tmp", "--data", t.TempDir(), "--listen", "256.0.0.1:x"}, "--listen"},
		{"bad otlp protocol", []string{"serve", "--event-logs", "/tmp", "--data", t.TempDir(), "--otlp-endpoint", "http://127.0.0.1:1", "--otlp-protocol", "udp"}, `protocol "udp"`},
		{"bad otlp endpoint", []string{"serve", "--event-logs", "/tmp", "--data", t.TempDir(), "--otlp-endpoint", "ftp://x"}, "--otlp-endpoint"},
		{"bad task sampling", []string{"serve", "--event-logs", "/tmp", "--data", t.TempDir(), "--otlp-endpoint", "http://127.0.0.1:1", "--otlp-task-sampling", "2"}, "taskSamplingRatio"},
		{"bad delta", []string{"serve", "--event-logs", "/tmp", "--data", t.TempDir(), "--delta", "gs://bucket/x"}, "--delta"},
		{"bad shard", []string{"serve", "--event-logs", "/tmp", "--shard", "2/2"}, "--shard"},
		{"peers without shard", []string{"serve", "--event-logs", "/tmp", "--peers", "http://a,http://b"}, "--peers needs --shard"},
		{"peers not one per shard", []string{"serve", "--event-logs", "/tmp", "--shard", "0/3", "--peers", "http://a,http://b"}, "2 URLs for 3 shards"},
		{"peer not a URL", []string{"serve", "--event-logs", "/tmp", "--shard", "0/2", "--peers", "http://a,b:80"}, `"b:80"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("got exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

// A bad OTEL_* variable is a usage error naming it, as a bad flag is.
func TestServeOTLPEnvErrors(t *testing.T) {
	for _, c := range []struct{ name, key, value, want string }{
		{"bad sampler ratio", "OTEL_TRACES_SAMPLER_ARG", "lots", "OTEL_TRACES_SAMPLER_ARG"},
		{"bad protocol", "OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon", "carrier-pigeon"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv(c.key, c.value)
			code, _, stderr := runCLI("serve", "--event-logs", "/tmp", "--data", t.TempDir())
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("got exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

// TestServeAuthTokenFile: the binary's --auth-token-file guards the API.
func TestServeAuthTokenFile(t *testing.T) {
	bin := buildSparkdx(t)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("t0ken-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := sparktest.FreeAddr(t)
	cmd := exec.Command(bin, "serve", "--event-logs", sparktest.Path(t, "spark-events"), "--data", t.TempDir(),
		"--listen", addr, "--auth-token-file", tok)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	status := func(auth string) int {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/v1/applications", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for deadline := time.Now().Add(20 * time.Second); status("") == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
	if got := status(""); got != 401 {
		t.Errorf("without token: got %d, want 401", got)
	}
	if got := status("Bearer t0ken-from-file"); got != 200 {
		t.Errorf("with the file's token: got %d, want 200", got)
	}
	if !strings.Contains(out.String(), "listening on http://"+addr) {
		t.Errorf("startup line missing: %s", out.String())
	}
}
