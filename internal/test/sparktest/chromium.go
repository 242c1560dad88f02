package sparktest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Chromium is a headless Chromium driven over the DevTools protocol on
// --remote-debugging-pipe: JSON messages separated by NUL bytes, commands
// on fd 3, replies and events on fd 4. Only the standard library is needed.
type Chromium struct {
	in      io.WriteCloser
	onEvent func(CDPMessage)
	closed  chan struct{} // closed when Chromium closes its end of the pipe

	stderrMu sync.Mutex
	stderr   bytes.Buffer

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan CDPMessage
}

// CDPMessage is one DevTools protocol message: a reply (ID set) or an
// event (Method set).
type CDPMessage struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// StartChromium runs the Chromium program bin (find it with
// Program(t, "chromium")) headless with a fresh profile, stopped when the
// test ends. onEvent, if not nil, gets every event, in order, on the
// goroutine reading the pipe (it must not block for long nor Call). args
// are added to the command line.
func StartChromium(t testing.TB, bin string, onEvent func(CDPMessage), args ...string) *Chromium {
	t.Helper()
	Live(t)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync"}
	argv = append(argv, args...)
	argv = append(argv, "--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--remote-debugging-pipe", "about:blank")
	cmd := exec.Command(bin, argv...)
	cmd.ExtraFiles = []*os.File{cmdR, outW} // fd 3: commands in, fd 4: replies out
	c := &Chromium{in: cmdW, onEvent: onEvent, closed: make(chan struct{}), waiting: map[int]chan CDPMessage{}}
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		c.stderrMu.Lock()
		defer c.stderrMu.Unlock()
		return c.stderr.Write(p)
	})
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	go c.read(outR)
	t.Cleanup(func() {
		cmdW.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return c
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func (c *Chromium) read(r io.Reader) {
	defer close(c.closed)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m CDPMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			c.mu.Lock()
			ch := c.waiting[m.ID]
			delete(c.waiting, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		if c.onEvent != nil {
			c.onEvent(m)
		}
	}
}

// Call sends one command (to the browser when session is "", else to that
// target session) and waits for its reply, decoding its result into
// result unless that is nil.
func (c *Chromium) Call(ctx context.Context, session, method string, params, result any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan CDPMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := c.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-c.closed:
		select {
		case m := <-ch: // the reply came just before the pipe closed
			if m.Error != nil {
				return fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			if result != nil {
				return json.Unmarshal(m.Result, result)
			}
			return nil
		default:
		}
		c.stderrMu.Lock()
		defer c.stderrMu.Unlock()
		return fmt.Errorf("%s: chromium closed the pipe; stderr:\n%s", method, c.stderr.String())
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}
