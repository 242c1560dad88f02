package main

import (
	"context"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/pipeline"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/report"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// isTerminal tells whether w is a terminal (an *os.File on a TTY).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// textOptions picks colour and width for text written to w: colour only on
// a terminal and never when NO_COLOR is set to anything (no-color.org).
func textOptions(w io.Writer) report.TextOptions {
	opts := report.TextOptions{}
	if !isTerminal(w) {
		return opts
	}
	opts.Color = os.Getenv("NO_COLOR") == ""
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			opts.Width = min(cols, 140)
		}
	}
	return opts
}

// outputFile opens -o FILE, or returns stdout when path is empty. The
// returned close function reports the error of closing the file.
func outputFile(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// replayLog replays one log like pipeline.Replay, drawing a progress bar
// on stderr while it reads when stderr is a terminal.
func replayLog(ctx context.Context, l *eventlog.Log, opts replay.Options, stderr io.Writer) (*model.Attempt, pipeline.Source, *replay.Stats, error) {
	if !isTerminal(stderr) {
		return pipeline.Replay(ctx, l, opts)
	}
	p := newProgress(stderr, l.Name, l.Size)
	opts.Wrap = func(r *eventlog.Reader) io.Reader {
		p.Stored = r.StoredBytes
		return p.Reader(r)
	}
	a, src, stats, err := pipeline.Replay(ctx, l, opts)
	p.Finish()
	return a, src, stats, err
}

// inputOf is what the text and HTML renderers read of a diagnosis.
func inputOf(d *pipeline.Diagnosis) *report.Input {
	return &report.Input{Report: d.Report, Result: d.Result, Attempt: d.Attempt}
}

// writeReport renders inputs in format to -o FILE, or to stdout.
func writeReport(stdout io.Writer, path, format string, inputs []*report.Input, all bool) error {
	w, closeOut, err := outputFile(path, stdout)
	if err != nil {
		return inputErr(err)
	}
	switch format {
	case "text":
		opts := textOptions(w)
		opts.All = all
		err = report.WriteText(w, inputs, opts)
	case "html":
		err = report.WriteHTMLWith(w, inputs, report.HTMLOptions{AllFindings: all})
	default:
		reports := make([]*reportv1.Report, len(inputs))
		for i, in := range inputs {
			reports[i] = in.Report
		}
		err = report.WriteJSON(w, reports)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	return err
}
