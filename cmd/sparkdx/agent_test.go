package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func TestAgentOnceJSON(t *testing.T) {
	node := filepath.Join("..", "..", "internal", "agent", "testdata", "node1")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"agent", "--once", "--format", "json", "--host", "node1",
		"--proc", filepath.Join(node, "proc"), "--cgroup", filepath.Join(node, "sys", "fs", "cgroup")}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("got exit %d, want 0; stderr: %s", code, stderr.String())
	}
	var snap struct {
		Host      string `json:"host"`
		Time      int64  `json:"time"`
		Processes []struct {
			PID        int    `json:"pid"`
			Role       string `json:"role"`
			AppID      string `json:"appId"`
			ExecutorID string `json:"executorId"`
			RSSBytes   uint64 `json:"rssBytes"`
			JVM        *struct {
				ClassesLoaded uint64 `json:"classesLoaded"`
			} `json:"jvm"`
			Children []struct {
				PID  int    `json:"pid"`
				Kind string `json:"kind"`
			} `json:"children"`
		} `json:"processes"`
		Node struct {
			MemAvailableBytes uint64 `json:"memAvailableBytes"`
		} `json:"node"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &snap); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	if snap.Host != "node1" || snap.Time == 0 || len(snap.Processes) != 4 || snap.Node.MemAvailableBytes == 0 {
		t.Fatalf("got host %q time %d, %d processes, node %+v; want node1, a time, 4 processes, node memory",
			snap.Host, snap.Time, len(snap.Processes), snap.Node)
	}
	p := snap.Processes[0]
	if p.PID != 100 || p.Role != "executor" || p.AppID != "app-20240101000000-0001" || p.ExecutorID != "7" ||
		p.RSSBytes == 0 || p.JVM == nil || p.JVM.ClassesLoaded == 0 || len(p.Children) != 3 || p.Children[0].Kind != "python" {
		t.Errorf("got first process %+v, want executor 7 of app-20240101000000-0001 with a JVM and 3 children, a python first", p)
	}
}

func TestAgentUsageErrors(t *testing.T) {
	tests := [][]string{
		{"agent", "--format", "text", "--once"},
		{"agent", "--heap-dump-at", "0.9"},
		{"agent", "--heap-dump-at", "2", "--heap-dump-dir", "/tmp"},
		{"agent", "--heap-dump-at-driver", "0.9"},                                                                                     // a driver threshold without a directory
		{"agent", "--heap-dump-at-driver", "1.5", "--heap-dump-dir", "/tmp"},                                                          // not a fraction
		{"agent", "--heap-dump-at", "0.9", "--heap-dump-dir", "/tmp", "--heap-dump-upload", "/x"},                                     // not s3://
		{"agent", "--heap-dump-at", "0.9", "--heap-dump-dir", "/tmp", "--heap-dump-upload", "gs://"},                                  // no bucket
		{"agent", "--heap-dump-at", "0.9", "--heap-dump-dir", "/tmp", "--heap-dump-upload", "abfss://c@acct.blob.core.windows.net/p"}, // a Blob host for ADLS
		{"agent", "--heap-dump-at", "0.9", "--heap-dump-dir", "/tmp", "--heap-dump-apps", "app-[1"},                                   // a bad pattern
		{"agent", "--interval", "0s"},
		{"agent", "--profile"},                                // no directory
		{"agent", "--profile-alloc", "--profile-dir", "/tmp"}, // no schedule
		{"agent", "--profile", "--profile-dir", "/tmp", "--profile-every", "10s"},
		{"agent", "--profile", "--profile-dir", "/tmp", "--profile-every", "48h"},
		{"agent", "--profile", "--profile-dir", "/tmp", "--profile-duration", "10m"},
		{"agent", "--profile", "--profile-dir", "/tmp", "--profile-every", "1m", "--profile-duration", "1m"},
		{"agent", "--profile", "--profile-dir", "/tmp", "--profile-max-size", "lots"},
		{"agent", "--profile", "--profile-dir", "/nonexistent/profiles", "--once"},
		{"agent", "--no-such-flag"},
		{"agent", "extra"},
		{"agent", "--once", "--proc", "/nonexistent/proc"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, nil, &stdout, &stderr); code != 2 {
				t.Errorf("got exit %d, want 2; stderr: %s", code, stderr.String())
			}
			if stderr.Len() == 0 {
				t.Error("got no message on stderr, want one")
			}
		})
	}
}

func TestAgentServesMetrics(t *testing.T) {
	node := filepath.Join("..", "..", "internal", "agent", "testdata", "node1")
	addr := sparktest.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"agent", "--interval", "100ms", "--listen", addr, "--host", "node1",
			"--proc", filepath.Join(node, "proc"), "--cgroup", filepath.Join(node, "sys", "fs", "cgroup")}, nil, io.Discard, &stderr)
	}()
	var body string
	for i := 0; i < 50 && !strings.Contains(body, "sparkdx_process_resident_memory_bytes"); i++ {
		time.Sleep(100 * time.Millisecond)
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
	}
	resp, err := http.Get("http://" + addr + "/snapshot")
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Host      string            `json:"host"`
		Processes []json.RawMessage `json:"processes"`
	}
	err = json.NewDecoder(resp.Body).Decode(&snap)
	resp.Body.Close()
	if err != nil || snap.Host != "node1" || len(snap.Processes) != 4 {
		t.Errorf("/snapshot: got host %q, %d processes (%v), want node1 and 4", snap.Host, len(snap.Processes), err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("got exit %d, want 0 after cancel", code)
	}
	want := `sparkdx_process_resident_memory_bytes{app_id="app-20240101000000-0001",executor_id="7",host="node1",pid="100",role="executor"} 2.048e+09`
	if !strings.Contains(body, want) {
		t.Errorf("metrics lack %s; got:\n%.2000s", want, body)
	}
}
