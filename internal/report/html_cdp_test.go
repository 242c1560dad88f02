package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// browser is a headless Chromium (sparktest.Chromium) loading one page
// at a time; events queue in events until load reads them.
type browser struct {
	*sparktest.Chromium
	events chan sparktest.CDPMessage
}

func startBrowser(t *testing.T, chromium string) *browser {
	t.Helper()
	events := make(chan sparktest.CDPMessage, 1024)
	c := sparktest.StartChromium(t, chromium, func(m sparktest.CDPMessage) {
		select {
		case events <- m:
		default: // a flood of events we do not read; drop
		}
	}, "--disable-extensions", "--hide-scrollbars")
	return &browser{Chromium: c, events: events}
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
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	s := att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := b.Call(ctx, s, m, nil, nil); err != nil {
			return nil, err
		}
	}
	if err := b.Call(ctx, s, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": w, "height": h, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	if err := b.Call(ctx, s, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
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
				b.Call(ctx, s, "Page.handleJavaScriptDialog", map[string]any{"accept": true}, nil)
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
	if err := b.Call(ctx, s, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &ev); err != nil {
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
	if err := b.Call(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, err
	}
	out.Screenshot = png
	b.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil)
	return out, nil
}

// problem describes an event that means the page is broken, or "".
func problem(ev sparktest.CDPMessage) string {
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
