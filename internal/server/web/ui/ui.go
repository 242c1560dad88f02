// Package ui holds sparkdx serve's web pages: html/template templates
// (which escape every log-derived string) and the small CSS and JS they
// use, embedded in the binary — no CDN.
package ui

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/sparkdx/sparkdx/internal/units"
)

//go:embed templates/*.html
var templates embed.FS

//go:embed static
var static embed.FS

// Static is the /static/ file tree.
func Static() fs.FS {
	sub, _ := fs.Sub(static, "static")
	return sub
}

// Templates parses the page templates.
func Templates() (*template.Template, error) {
	return template.New("").Funcs(Funcs()).ParseFS(templates, "templates/*.html")
}

// Funcs are the formatting helpers the templates use.
func Funcs() template.FuncMap {
	return template.FuncMap{
		"dur":   Duration,
		"bytes": units.Bytes,
		"time":  Time,
		"pct": func(part, whole int64) float64 {
			if whole <= 0 {
				return 0
			}
			return float64(part) * 100 / float64(whole)
		},
		"add": func(a, b int) int { return a + b },
		// pathseg escapes an application id for a link's path: an id
		// holding "/" is one segment (%2F), which the routes unescape.
		"pathseg": url.PathEscape,
		"recipeURL": func(ref string) string { // "troubleshoot/x.md#y" → "/recipes/troubleshoot/x.md?section=y"
			path, sec, ok := strings.Cut(ref, "#")
			if !ok {
				return "/recipes/" + path
			}
			return "/recipes/" + path + "?section=" + url.QueryEscape(sec)
		},
		"sdur":   func(ms int64) string { return signed(ms, Duration) },
		"sbytes": func(n int64) string { return signed(n, units.Bytes) },
		"snum":   func(n int64) string { return signed(n, func(v int64) string { return fmt.Sprint(v) }) },
		// unit and sunit format a number by its unit: "ms", "bytes" or "count".
		"unit":  func(unit string, n int64) string { return byUnit(unit)(n) },
		"sunit": func(unit string, n int64) string { return signed(n, byUnit(unit)) },
		"qunit": func(unit string, v float64) string { return byUnit(unit)(int64(v)) },
		"add64": func(a, b int64) int64 { return a + b },
		"sub":   func(a, b int) int { return a - b },
		"mul":   func(a, b int) int { return a * b },
		"firstLine": func(s string) string {
			line, _, _ := strings.Cut(s, "\n")
			return line
		},
	}
}

func byUnit(unit string) func(int64) string {
	switch unit {
	case "ms":
		return Duration
	case "bytes":
		return units.Bytes
	}
	return func(v int64) string { return fmt.Sprint(v) }
}

// Duration formats milliseconds the way every sparkdx output does
// (units.Millis: 850ms, 12.3s, 4m05s, 2h03m); "—" for none.
func Duration(ms int64) string {
	if ms < 0 {
		return "—"
	}
	return units.Millis(ms)
}

// Time formats epoch ms as UTC.
func Time(ms int64) string {
	if ms <= 0 {
		return "—"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
}

// signed formats a change: "+1.2s", "−3", "±0".
func signed(v int64, f func(int64) string) string {
	switch {
	case v > 0:
		return "+" + f(v)
	case v < 0:
		return "−" + f(-v)
	default:
		return "±0"
	}
}
