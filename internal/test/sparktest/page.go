package sparktest

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
)

// Page drives one headless Chromium page (a Chromium of its own) for a
// test: what makes a page broken for a person (console errors, uncaught
// exceptions, failed loads, script dialogs) is collected as problems.
type Page struct {
	*Chromium
	t       testing.TB
	session string

	mu       sync.Mutex
	problems []string // console errors, exceptions, failed loads, dialogs
	loads    chan struct{}
}

// StartPage starts Chromium bin (Program(t, "chromium")) with one page of
// width×height pixels.
func StartPage(t testing.TB, bin string, width, height int) *Page {
	t.Helper()
	Live(t)
	c := &Page{t: t, loads: make(chan struct{}, 16)}
	c.Chromium = StartChromium(t, bin, c.event)
	var tgt struct{ TargetID string }
	c.Do("", "Target.createTarget", map[string]any{"url": "about:blank"}, &tgt)
	var att struct{ SessionID string }
	c.Do("", "Target.attachToTarget", map[string]any{"targetId": tgt.TargetID, "flatten": true}, &att)
	c.session = att.SessionID
	for _, d := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		c.Do(c.session, d, nil, nil)
	}
	c.Do(c.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height,
		"deviceScaleFactor": 1, "mobile": false}, nil)
	return c
}

// event records what makes a page broken for a person.
func (c *Page) event(m CDPMessage) {
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
		go c.Do(c.session, "Page.handleJavaScriptDialog", map[string]any{"accept": true}, nil)
	}
}

// Do sends a command to session (the page's is c.Session(); "" for the
// browser) and waits up to 30s for its reply; a failure is a test error.
func (c *Page) Do(session, method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Call(ctx, session, method, params, result); err != nil {
		c.t.Errorf("cdp %v", err)
	}
}

// Session is the page's DevTools session id.
func (c *Page) Session() string { return c.session }

// Navigate loads url and waits for its load event.
func (c *Page) Navigate(url string) {
	c.t.Helper()
	c.drainLoads()
	c.Do(c.session, "Page.navigate", map[string]any{"url": url}, nil)
	c.WaitLoad()
}

func (c *Page) drainLoads() {
	for {
		select {
		case <-c.loads:
		default:
			return
		}
	}
}

// WaitLoad waits for the next load event (a navigation the page started).
func (c *Page) WaitLoad() {
	c.t.Helper()
	select {
	case <-c.loads:
	case <-time.After(20 * time.Second):
		c.t.Fatal("page did not load in 20s")
	}
}

// Eval evaluates a JS expression in the page and returns its JSON value.
func (c *Page) Eval(expr string) json.RawMessage {
	c.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	c.Do(c.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.ExceptionDetails != nil {
		c.t.Fatalf("eval %q: %s", expr, r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

// EvalString is Eval of a string expression.
func (c *Page) EvalString(expr string) string {
	var s string
	json.Unmarshal(c.Eval(expr), &s)
	return s
}

// EvalInt is Eval of a number expression.
func (c *Page) EvalInt(expr string) int {
	var n int
	json.Unmarshal(c.Eval(expr), &n)
	return n
}

// Screenshot saves a PNG of the page into $SPARKDX_SCREENSHOTS, if set.
func (c *Page) Screenshot(name string) {
	dir := os.Getenv("SPARKDX_SCREENSHOTS")
	if dir == "" {
		return
	}
	var r struct{ Data string }
	c.Do(c.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &r)
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		c.t.Errorf("screenshot: %v", err)
		return
	}
	os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644)
}

// TakeProblems returns and clears what went wrong since the last call.
func (c *Page) TakeProblems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.problems
	c.problems = nil
	return p
}

// CheckClean fails the test if page had problems since the last check.
func (c *Page) CheckClean(page string) {
	c.t.Helper()
	if p := c.TakeProblems(); len(p) > 0 {
		c.t.Errorf("%s: %s", page, strings.Join(p, "; "))
	}
}

// Click clicks the first element matching selector, as a person would,
// and waits for the page it loads; the test fails when nothing matches.
func (c *Page) Click(selector string) {
	c.t.Helper()
	if c.EvalString(fmt.Sprintf(`(() => { const a = document.querySelector(%q); if (!a) return "none"; a.click(); return "ok" })()`, selector)) != "ok" {
		c.t.Fatalf("%s: nothing to click on %s", selector, c.EvalString(`location.pathname`))
	}
	c.WaitLoad()
}

// CheckFits fails the test when the page is wider than width (a table or
// text that overflows the window), then checks it is clean (CheckClean).
func (c *Page) CheckFits(page string, width int) {
	c.t.Helper()
	if w := c.EvalInt(`document.documentElement.scrollWidth`); w > width {
		// Name what overflows: the first elements reaching past the window.
		over := c.EvalString(fmt.Sprintf(`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > %d)`+
			`.slice(0, 4).map(e => e.tagName + "." + e.className + " " + e.textContent.slice(0, 60)).join(" | ")`, width))
		c.t.Errorf("%s: %d px wide at a %d px window, want no horizontal overflow: %s", page, w, width, over)
	}
	c.CheckClean(page)
}
