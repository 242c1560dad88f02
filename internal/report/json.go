// Package report renders what sparkdx found about an application: the
// sparkdx.report/v1 document (internal/reportv1) as JSON Lines, text for
// people with a progress bar, and a self-contained HTML page; and the
// same three for the sparkdx.diff/v1 document (internal/diff).
package report

import (
	"encoding/json"
	"io"

	"github.com/sparkdx/sparkdx/internal/diff"
	"github.com/sparkdx/sparkdx/internal/reportv1"
)

// WriteJSON writes one sparkdx.report/v1 document per attempt, each on a
// line of its own (JSON Lines): one log gives one JSON object, several
// give the same objects one per line, so a program reads every case the
// same way (line by line, or `jq` as is).
func WriteJSON(w io.Writer, reports []*reportv1.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range reports {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// WriteDiffJSON writes the diff as one JSON document.
func WriteDiffJSON(w io.Writer, d *diff.Diff) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(d)
}
