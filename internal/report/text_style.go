package report

import (
	"io"
	"strings"
)

// style wraps text in ANSI SGR codes when colour is on, and passes it
// through untouched when it is off (not a TTY, NO_COLOR, golden files).
type style struct{ color bool }

const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrBlue   = "\x1b[34m"
	sgrCyan   = "\x1b[36m"
	sgrGrey   = "\x1b[90m"
)

func (s style) wrap(code, text string) string {
	if !s.color || text == "" {
		return text
	}
	return code + text + sgrReset
}

func (s style) bold(t string) string { return s.wrap(sgrBold, t) }
func (s style) dim(t string) string  { return s.wrap(sgrDim, t) }

// severity colours a severity label.
func (s style) severity(sev, text string) string {
	switch sev {
	case "critical":
		return s.wrap(sgrBold+sgrRed, text)
	case "warning":
		return s.wrap(sgrYellow, text)
	}
	return s.wrap(sgrCyan, text)
}

// phase colours a phase bar segment.
func (s style) phase(p string, text string) string {
	switch p {
	case "resourceWait":
		return s.wrap(sgrYellow, text)
	case "compute":
		return s.wrap(sgrGreen, text)
	case "outputWrite":
		return s.wrap(sgrBlue, text)
	}
	return s.wrap(sgrGrey, text)
}

// table lays out rows in aligned columns. Cells are plain text; colour is
// applied after padding so that escape codes never upset the alignment.
type table struct {
	head  []string
	right []bool // right-align column i (numbers)
	rows  [][]string
	paint []func(string) string // optional per-row colouring of the whole line
}

func (t *table) add(paint func(string) string, cells ...string) {
	t.rows = append(t.rows, cells)
	t.paint = append(t.paint, paint)
}

func (t *table) write(w io.Writer, st style, indent string) {
	widths := make([]int, len(t.head))
	for i, h := range t.head {
		widths[i] = width(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], width(c))
		}
	}
	line := func(cells []string) string {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-width(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + c)
			} else if i < len(cells)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	io.WriteString(w, st.dim(line(t.head))+"\n")
	for i, r := range t.rows {
		l := line(r)
		if p := t.paint[i]; p != nil {
			l = p(l)
		}
		io.WriteString(w, l+"\n")
	}
}
