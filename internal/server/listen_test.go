package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHTTPServerDropsIdleAndSlowClients: a keep-alive connection left idle
// and a request whose body never arrives are closed by the server; a
// connection past MaxConns waits until one closes (issue 14, item 7).
func TestHTTPServerDropsIdleAndSlowClients(t *testing.T) {
	lim := HTTPLimits{ReadHeader: 2 * time.Second, Read: 300 * time.Millisecond, Write: time.Second,
		Idle: 300 * time.Millisecond, MaxConns: 2}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := HTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}), lim)
	go srv.Serve(LimitListener(ln, lim.MaxConns))
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().String()

	dial := func(t *testing.T, request string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		io.WriteString(c, request)
		return c
	}
	closedWithin := func(c net.Conn, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := io.ReadAll(c)
		return err == nil // EOF: the server closed it
	}

	t.Run("idle keep-alive", func(t *testing.T) {
		c := dial(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		// Now idle: the server must hang up by itself.
		if !closedWithin(c, 3*time.Second) {
			t.Error("idle keep-alive connection still open after 3s (idle timeout 300ms)")
		}
	})
	t.Run("slow body", func(t *testing.T) {
		c := dial(t, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
		if !closedWithin(c, 3*time.Second) {
			t.Error("request with a stalled body still open after 3s (read timeout 300ms)")
		}
	})
	t.Run("connection limit", func(t *testing.T) {
		var held []net.Conn
		for range 2 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		time.Sleep(50 * time.Millisecond) // both accepted
		extra := make(chan string, 1)
		go func() {
			resp, err := http.Get("http://" + addr + "/")
			if err != nil {
				extra <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			extra <- string(b)
		}()
		select {
		case got := <-extra:
			t.Fatalf("third connection served while two were held: %q", got)
		case <-time.After(100 * time.Millisecond):
		}
		for _, c := range held {
			c.Close()
		}
		select {
		case got := <-extra:
			if !strings.Contains(got, "ok") {
				t.Errorf("third connection: got %q, want ok", got)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("third connection not served after the others closed")
		}
	})
}
