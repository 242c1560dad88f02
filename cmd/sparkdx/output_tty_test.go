//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// openPTY opens a pseudo-terminal pair: what is written to tty can be
// read from master.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		sparktest.Missing(t, "a pseudo-terminal (/dev/ptmx): "+err.Error())
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestTextOnATerminal runs analyze with stdout on a terminal: colour by
// default, none with NO_COLOR, and JSON (no colour) when stdout is not a
// terminal.
func TestTextOnATerminal(t *testing.T) {
	log := sparktest.Path(t, "spark-events", "app-20161115172038-0000")
	for _, c := range []struct {
		name      string
		noColor   string
		wantColor bool
	}{
		{"colour", "", true},
		{"NO_COLOR", "1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", c.noColor)
			if c.noColor == "" {
				os.Unsetenv("NO_COLOR")
			}
			master, tty := openPTY(t)
			got := make(chan string)
			go func() {
				var b bytes.Buffer
				io.Copy(&b, master) // ends with EIO when the tty closes
				got <- b.String()
			}()
			var errb bytes.Buffer
			code := run(context.Background(), []string{"analyze", log}, nil, tty, &errb)
			tty.Close()
			out := <-got
			if code != 0 {
				t.Fatalf("got exit %d: %s", code, errb.String())
			}
			if !strings.Contains(out, "Where the time went") {
				t.Errorf("got %.200q on the terminal, want the text report (the default there)", out)
			}
			if has := strings.Contains(out, "\x1b["); has != c.wantColor {
				t.Errorf("got escape codes %v, want %v", has, c.wantColor)
			}
		})
	}
}
