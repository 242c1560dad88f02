package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/sparktest"
)

// chrome drives one headless Chromium page (sparktest.Chromium).
type chrome struct {
	*sparktest.Chromium
	t       *testing.T
	session string

	mu       sync.Mutex
	problems []string // console errors, exceptions, failed loads, dialogs
	loads    chan struct{}
}

func startChrome(t *testing.T, bin string) *chrome {
	t.Helper()
	c := &chrome{t: t, loads: make(chan struct{}, 16)}
	c.Chromium = sparktest.StartChromium(t, bin, c.event)
	var tgt struct{ TargetID string }
	c.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &tgt)
	var att struct{ SessionID string }
	c.call("", "Target.attachToTarget", map[string]any{"targetId": tgt.TargetID, "flatten": true}, &att)
	c.session = att.SessionID
	for _, d := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		c.call(c.session, d, nil, nil)
	}
	c.call(c.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1400, "height": 1000,
		"deviceScaleFactor": 1, "mobile": false}, nil)
	return c
}

// event records what makes a page broken for a person.
func (c *chrome) event(m sparktest.CDPMessage) {
	var p struct {
		Type             string
		Args             []struct{ Value any }
		ExceptionDetails struct {
			Text      string
			Exception struct{ Description string }
		}
		Entry     struct{ Level, Text, URL string }
		ErrorText string
		Message   string
	}
	json.Unmarshal(m.Params, &p)
	add := func(s string) {
		c.mu.Lock()
		c.problems = append(c.problems, s)
		c.mu.Unlock()
	}
	switch m.Method {
	case "Page.loadEventFired":
		select {
		case c.loads <- struct{}{}:
		default:
		}
	case "Runtime.consoleAPICalled":
		if p.Type == "error" || p.Type == "assert" {
			add(fmt.Sprintf("console.%s: %v", p.Type, p.Args))
		}
	case "Runtime.exceptionThrown":
		add("exception: " + p.ExceptionDetails.Text + " " + p.ExceptionDetails.Exception.Description)
	case "Log.entryAdded":
		if p.Entry.Level == "error" {
			add("log: " + p.Entry.Text + " " + p.Entry.URL)
		}
	case "Network.loadingFailed":
		add("network: " + p.ErrorText)
	case "Page.javascriptDialogOpening":
		add("dialog opened (script ran): " + p.Message)
		go c.call(c.session, "Page.handleJavaScriptDialog", map[string]any{"accept": true}, nil)
	}
}

// call sends a command and waits up to 30s for its reply; a failure is a
// test error.
func (c *chrome) call(session, method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Call(ctx, session, method, params, result); err != nil {
		c.t.Errorf("cdp %v", err)
	}
}

// navigate loads url and waits for its load event.
func (c *chrome) navigate(url string) {
	c.t.Helper()
	c.drainLoads()
	c.call(c.session, "Page.navigate", map[string]any{"url": url}, nil)
	c.waitLoad()
}

func (c *chrome) drainLoads() {
	for {
		select {
		case <-c.loads:
		default:
			return
		}
	}
}

func (c *chrome) waitLoad() {
	c.t.Helper()
	select {
	case <-c.loads:
	case <-time.After(20 * time.Second):
		c.t.Fatal("page did not load in 20s")
	}
}

// eval evaluates a JS expression in the page and returns its JSON value.
func (c *chrome) eval(expr string) json.RawMessage {
	c.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	c.call(c.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.ExceptionDetails != nil {
		c.t.Fatalf("eval %q: %s", expr, r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

func (c *chrome) evalString(expr string) string {
	var s string
	json.Unmarshal(c.eval(expr), &s)
	return s
}

func (c *chrome) evalInt(expr string) int {
	var n int
	json.Unmarshal(c.eval(expr), &n)
	return n
}

// screenshot saves a PNG of the page into $SPARKDX_SCREENSHOTS, if set.
func (c *chrome) screenshot(name string) {
	dir := os.Getenv("SPARKDX_SCREENSHOTS")
	if dir == "" {
		return
	}
	var r struct{ Data string }
	c.call(c.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &r)
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		c.t.Errorf("screenshot: %v", err)
		return
	}
	os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644)
}

// takeProblems returns and clears what went wrong since the last call.
func (c *chrome) takeProblems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.problems
	c.problems = nil
	return p
}

func (c *chrome) checkClean(page string) {
	c.t.Helper()
	if p := c.takeProblems(); len(p) > 0 {
		c.t.Errorf("%s: %s", page, strings.Join(p, "; "))
	}
}
