// Package recipes embeds the troubleshooting recipes under docs/recipes so
// that the binary can show them (sparkdx explain, the HTML report, serve)
// without the repository at hand. A recipe reference is a path under
// docs/recipes with an optional anchor: "troubleshoot/oom-and-spill.md#spill".
package recipes

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
)

//go:embed rules.md troubleshoot/*.md observability/*.md
var files embed.FS

// Read returns the recipe ref names: the section under the heading its
// anchor names (up to the next heading of the same or a higher level), or
// the whole file without an anchor.
func Read(ref string) (string, error) {
	path, anchor, _ := strings.Cut(ref, "#")
	b, err := fs.ReadFile(files, path)
	if err != nil {
		return "", fmt.Errorf("recipe %s: no such recipe", ref)
	}
	if anchor == "" {
		return string(b), nil
	}
	s, ok := Section(string(b), anchor)
	if !ok {
		return "", fmt.Errorf("recipe %s: %s has no heading for #%s", ref, path, anchor)
	}
	return s, nil
}

// Section is the part of a Markdown document under the heading whose
// anchor (Slug) is anchor, the heading included.
func Section(doc, anchor string) (string, bool) {
	lines := strings.SplitAfter(doc, "\n")
	start, level := -1, 0
	fence := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		n := headingLevel(l)
		if fence || n == 0 {
			continue
		}
		if start >= 0 && n <= level {
			return strings.Join(lines[start:i], ""), true
		}
		if start < 0 && Slug(strings.TrimSpace(l[n:])) == anchor {
			start, level = i, n
		}
	}
	if start < 0 {
		return "", false
	}
	return strings.Join(lines[start:], ""), true
}

// headingLevel is the level of an ATX heading line ("## x" → 2), 0 if the
// line is none.
func headingLevel(l string) int {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(l) || l[n] != ' ' {
		return 0
	}
	return n
}

// Slug is a heading's anchor as GitHub makes it: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Rule is a rule's section of rules.md: what it detects, its inputs, its
// thresholds and their sources.
func Rule(id string) (string, bool) {
	b, err := fs.ReadFile(files, "rules.md")
	if err != nil {
		return "", false
	}
	return Section(string(b), id)
}
