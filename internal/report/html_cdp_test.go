package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
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

// browser is a headless Chromium driven over the DevTools protocol on
// --remote-debugging-pipe: JSON messages separated by NUL bytes, commands
// on fd 3, replies and events on fd 4. Only the standard library is needed.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan cdpMessage
	events  chan cdpMessage
	stderr  *bytes.Buffer

	mu     sync.Mutex
	nextID int
}

type cdpMessage struct {
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

func startBrowser(t *testing.T, chromium string) *browser {
	t.Helper()
	dir := t.TempDir()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--hide-scrollbars", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW} // fd 3: commands in, fd 4: replies out
	b := &browser{t: t, cmd: cmd, in: cmdW, replies: make(chan cdpMessage, 64), events: make(chan cdpMessage, 1024),
		stderr: &bytes.Buffer{}}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	go b.read(outR)
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
	return b
}

func (b *browser) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	defer close(b.replies)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(msg[:len(msg)-1], &m); err != nil {
			continue
		}
		if m.ID != 0 {
			b.replies <- m
		} else {
			select {
			case b.events <- m:
			default: // a flood of events we do not read; drop
			}
		}
	}
}

// call sends one command and waits for its reply.
func (b *browser) call(ctx context.Context, session, method string, params any, result any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	b.mu.Unlock()
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
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		select {
		case m, ok := <-b.replies:
			if !ok {
				return fmt.Errorf("%s: chromium closed the pipe; stderr:\n%s", method, b.stderr.String())
			}
			if m.ID != id {
				continue
			}
			if m.Error != nil {
				return fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			if result != nil {
				return json.Unmarshal(m.Result, result)
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
	}
}

// pageLoad is what loading one page showed.
type pageLoad struct {
	Problems   []string // console errors, uncaught exceptions, dialogs, failed loads
	Screenshot []byte   // PNG
	Facts      map[string]any
}

// load opens url in a new tab of size w×h, waits for the load event and a
// moment for scripts, evaluates expr (a JSON-returning expression) and
// takes a full-page screenshot.
func (b *browser) load(ctx context.Context, url string, w, h int, expr string) (*pageLoad, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	s := att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := b.call(ctx, s, m, nil, nil); err != nil {
			return nil, err
		}
	}
	if err := b.call(ctx, s, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": w, "height": h, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	if err := b.call(ctx, s, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return nil, err
	}
	out := &pageLoad{}
	loaded := false
	settle := time.After(24 * time.Hour)
	for done := false; !done; {
		select {
		case ev := <-b.events:
			if ev.SessionID != s {
				continue
			}
			if p := problem(ev); p != "" {
				out.Problems = append(out.Problems, p)
			}
			switch ev.Method {
			case "Page.loadEventFired":
				if !loaded {
					loaded = true
					settle = time.After(300 * time.Millisecond)
				}
			case "Page.javascriptDialogOpening":
				b.call(ctx, s, "Page.handleJavaScriptDialog", map[string]any{"accept": true}, nil)
			}
		case <-settle:
			done = true
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s to load: %w", url, ctx.Err())
		}
	}
	var ev struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	if err := b.call(ctx, s, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &ev); err != nil {
		return nil, err
	}
	if ev.ExceptionDetails != nil {
		return nil, fmt.Errorf("evaluate: %v", ev.ExceptionDetails)
	}
	if err := json.Unmarshal([]byte(ev.Result.Value), &out.Facts); err != nil {
		return nil, fmt.Errorf("evaluate: %q: %w", ev.Result.Value, err)
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := b.call(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, err
	}
	out.Screenshot = png
	b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil)
	return out, nil
}

// problem describes an event that means the page is broken, or "".
func problem(ev cdpMessage) string {
	switch ev.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(ev.Params, &p)
		return "uncaught exception: " + p.ExceptionDetails.Text + " " + p.ExceptionDetails.Exception.Description
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string            `json:"type"`
			Args []json.RawMessage `json:"args"`
		}
		json.Unmarshal(ev.Params, &p)
		if p.Type == "error" || p.Type == "assert" {
			return fmt.Sprintf("console.%s: %s", p.Type, bytes.Join(rawJoin(p.Args), []byte(" ")))
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(ev.Params, &p)
		if p.Entry.Level == "error" {
			return fmt.Sprintf("log %s error: %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL)
		}
	case "Page.javascriptDialogOpening":
		var p struct {
			Type, Message string
		}
		json.Unmarshal(ev.Params, &p)
		return fmt.Sprintf("javascript %s dialog opened: %q", p.Type, p.Message)
	}
	return ""
}

func rawJoin(rs []json.RawMessage) [][]byte {
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}
