package gcs

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// resumable is a hand-written Cloud Storage resumable-upload endpoint: one
// session that takes chunks only at the offset it holds, answers status
// queries, and fails the chunks fault names.
type resumable struct {
	mu        sync.Mutex
	held      []byte
	object    []byte // set once complete
	chunks    int
	statuses  int
	cancelled bool
	// fault, for the n-th chunk (1-based), answers it after keeping the
	// first half of it: "drop" closes the connection, "503" or "403"
	// answer that status; "hang" closes hung and answers nothing.
	// "always503" fails every chunk.
	fault map[int]string
	hung  chan struct{}
}

func (r *resumable) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, "/upload/storage/v1/b/dumps/o"):
		w.Header().Set("Location", "http://"+req.Host+"/session")
	case req.Method == http.MethodDelete:
		r.cancelled = true
		w.WriteHeader(499)
	case req.Method == http.MethodPut:
		r.put(w, req)
	default:
		http.Error(w, "unexpected "+req.Method+" "+req.URL.String(), http.StatusBadRequest)
	}
}

func (r *resumable) put(w http.ResponseWriter, req *http.Request) {
	var start, end, total int64
	cr := req.Header.Get("Content-Range")
	if _, err := fmt.Sscanf(cr, "bytes */%d", &total); err == nil {
		r.statuses++
		r.answer(w, total)
		return
	}
	if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &start, &end, &total); err != nil || start != int64(len(r.held)) {
		http.Error(w, fmt.Sprintf("chunk %q at %d bytes held", cr, len(r.held)), http.StatusBadRequest)
		return
	}
	r.chunks++
	body, _ := io.ReadAll(req.Body)
	switch f := r.fault[r.chunks]; {
	case f == "" && r.fault[0] != "always503":
		r.held = append(r.held, body...)
		r.answer(w, total)
	case f == "drop":
		r.held = append(r.held, body[:len(body)/2]...)
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	case f == "hang":
		// Wait, unlocked, for the client to give up (its ctx ended).
		close(r.hung)
		r.mu.Unlock()
		<-req.Context().Done()
		r.mu.Lock()
	case f == "403":
		http.Error(w, `{"error":{"code":403,"message":"caller does not have storage.objects.create access"}}`, http.StatusForbidden)
	default:
		r.held = append(r.held, body[:len(body)/2]...)
		http.Error(w, "backend error", http.StatusServiceUnavailable)
	}
}

func (r *resumable) answer(w http.ResponseWriter, total int64) {
	if int64(len(r.held)) == total {
		r.object = r.held
		w.WriteHeader(http.StatusOK)
		return
	}
	if len(r.held) > 0 {
		w.Header().Set("Range", fmt.Sprintf("bytes=0-%d", len(r.held)-1))
	}
	w.WriteHeader(http.StatusPermanentRedirect)
}

// TestResume: a chunk cut short or refused transiently is resumed from
// what the service says it kept; a chunk refused for good, or retries
// spent, end the upload with the service's word and cancel the session.
func TestResume(t *testing.T) {
	want := random(1<<20 + 17) // 5 chunks of 256 KiB, the last of 17 bytes
	tests := []struct {
		name      string
		fault     map[int]string
		wantErr   string // "" : the object equals the file
		wantQuery int    // status queries
	}{
		{"clean", nil, "", 0},
		{"dropped and 503", map[int]string{2: "drop", 4: "503"}, "", 2},
		{"refused", map[int]string{3: "403"}, "403 Forbidden: caller does not have storage.objects.create access", 0},
		{"retries spent", map[int]string{0: "always503"}, "503 Service Unavailable", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &resumable{fault: tt.fault}
			srv := httptest.NewServer(r)
			defer srv.Close()
			c := NewClient(Config{Endpoint: srv.URL, NoAuth: true, ChunkSize: 256 << 10, Retries: 2})
			err := c.Upload(context.Background(), "dumps", "node-1/java_pid42.hprof", bytes.NewReader(want), int64(len(want)), "application/vnd.java.hprof")
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.statuses != tt.wantQuery {
				t.Errorf("got %d status queries, want %d", r.statuses, tt.wantQuery)
			}
			if tt.wantErr == "" {
				if err != nil || !bytes.Equal(r.object, want) || r.cancelled {
					t.Fatalf("got %v, object of %d bytes (equal %v), cancelled %v; want the %d bytes of the file", err, len(r.object), bytes.Equal(r.object, want), r.cancelled, len(want))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || r.object != nil || !r.cancelled {
				t.Fatalf("got %v, object %v, cancelled %v; want an error with %q, no object, the session cancelled", err, r.object != nil, r.cancelled, tt.wantErr)
			}
		})
	}
}

// TestResumeCancelled: an upload whose ctx ends mid-chunk (the agent
// stopping) returns the context's error and cancels the session.
func TestResumeCancelled(t *testing.T) {
	r := &resumable{fault: map[int]string{2: "hang"}, hung: make(chan struct{})}
	srv := httptest.NewServer(r)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-r.hung; cancel() }()
	dump := random(1 << 20)
	c := NewClient(Config{Endpoint: srv.URL, NoAuth: true, ChunkSize: 256 << 10})
	err := c.Upload(ctx, "dumps", "x.hprof", bytes.NewReader(dump), int64(len(dump)), "application/vnd.java.hprof")
	r.mu.Lock()
	defer r.mu.Unlock()
	if !errors.Is(err, context.Canceled) || !r.cancelled || r.object != nil || r.statuses != 0 {
		t.Fatalf("got %v, cancelled %v, object %v, %d status queries; want context.Canceled, the session cancelled, no object, no query",
			err, r.cancelled, r.object != nil, r.statuses)
	}
}

// random returns n random bytes: a stand-in heap dump no store can shrink.
func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}
