// Command sparkdx explains why an Apache Spark application is slow or dies,
// from the data Spark already writes and from the nodes it runs on.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sparkdx/sparkdx/internal/textsafe"
)

// command is one subcommand: it parses its own flags and returns an error;
// only main turns errors into exit codes.
type command struct {
	name  string
	usage string
	run   func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// exitError carries an exit code chosen by a subcommand (1: a finding at or
// above --fail-on; 2: bad usage or unreadable input).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks bad usage or unreadable input (exit 2).
func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

// inputErr wraps an error reading input so that it exits 2.
func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: 2, err: err}
}

func commands() []command {
	return []command{
		{"analyze", "analyze [--format text|json|html] [-o FILE] [--fail-on warning|critical] [--strict] [--otlp-endpoint URL] LOG...", runAnalyze},
		{"diff", "diff [--format text|json|html] [-o FILE] BEFORE_LOG AFTER_LOG", runDiff},
		{"tune", "tune [--format text|conf|defaults|json] [--price-core-hour N] [--price-gb-hour N] LOG", runTune},
		{"api", "api --log-dir DIR REST_PATH", runAPI},
		{"serve", "serve --event-logs DIR|s3://BUCKET/PREFIX [--listen 127.0.0.1:18080] [--data DIR] [--auth-token-file F] [--otlp-endpoint URL] [--delta DIR|s3://BUCKET/PREFIX]", runServe},
		{"agent", agentUsage, runAgent},
		{"heap", heapUsage, runHeap},
		{"profile", profileUsage, runProfile},
		{"delta", deltaUsage, runDelta},
		{"explain", explainUsage, runExplain},
		{"version", "version", runVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	switch {
	case len(args) == 0:
		printUsage(stderr, cmds)
		return 2
	case args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && len(args) == 1):
		printUsage(stdout, cmds)
		return 0
	case args[0] == "help":
		args = []string{args[1], "--help"} // sparkdx help CMD
	case args[0] == "--version" || args[0] == "-version":
		args = []string{"version"}
	}
	for _, c := range cmds {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdin, stdout, stderr)
		if err == nil {
			return 0
		}
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil && ee.err.Error() != "" {
				// Errors name files and quote inputs: nothing in them may drive the terminal.
				fmt.Fprintf(stderr, "sparkdx %s: %s\n", c.name, textsafe.String(ee.err.Error()))
			}
			return ee.code
		}
		fmt.Fprintf(stderr, "sparkdx %s: %s\n", c.name, textsafe.String(err.Error()))
		return 2
	}
	fmt.Fprintf(stderr, "sparkdx: unknown command %q\n", args[0])
	printUsage(stderr, cmds)
	return 2
}

func printUsage(w io.Writer, cmds []command) {
	fmt.Fprintln(w, "usage:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  sparkdx %s\n", c.usage)
	}
}
