package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// HTTPLimits bounds what slow, idle or too many clients can hold.
type HTTPLimits struct {
	ReadHeader time.Duration // to read a request's headers
	Read       time.Duration // to read a whole request, body included (OTLP pushes)
	Write      time.Duration // to write a response (raw-log zips are the largest)
	Idle       time.Duration // a keep-alive connection between requests
	MaxConns   int           // connections open at once; more wait in the kernel's backlog
}

// DefaultHTTPLimits returns serve's limits.
func DefaultHTTPLimits() HTTPLimits {
	return HTTPLimits{
		ReadHeader: 10 * time.Second,
		Read:       time.Minute,
		Write:      10 * time.Minute,
		Idle:       2 * time.Minute,
		MaxConns:   512,
	}
}

// HTTPServer returns an http.Server for h with lim's timeouts.
func HTTPServer(h http.Handler, lim HTTPLimits) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: lim.ReadHeader, ReadTimeout: lim.Read,
		WriteTimeout: lim.Write, IdleTimeout: lim.Idle, MaxHeaderBytes: 1 << 20}
}

// LimitListener accepts at most n connections open at once: Accept waits
// until one closes.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots chan struct{}
	once  sync.Once
	done  chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
