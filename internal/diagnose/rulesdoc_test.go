package diagnose_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

const (
	tableBegin = "<!-- rules table: generated from internal/diagnose (go test ./internal/diagnose -run TestRulesTable -update) -->\n"
	tableEnd   = "<!-- end of rules table -->\n"
)

// rulesTable is the summary table of docs/recipes/rules.md, written from
// the rules' own thresholds: one source for the numbers.
func rulesTable() string {
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	num := func(v float64) string {
		if v == 0 {
			return "—"
		}
		return fmt.Sprintf("%g", v)
	}
	var b strings.Builder
	b.WriteString(tableBegin)
	b.WriteString("| rule | metric | warning | critical | gate | source | recipe |\n|---|---|---|---|---|---|---|\n")
	for _, r := range diagnose.All {
		for _, th := range r.Thresholds {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.ID, cell(th.Metric), num(th.Warning),
				num(th.Critical), cell(th.Gate), cell(th.Source), r.Recipe)
		}
	}
	b.WriteString(tableEnd)
	return b.String()
}

// TestRulesTable checks that the summary table in docs/recipes/rules.md is
// the one the rules give (-update rewrites it).
func TestRulesTable(t *testing.T) {
	sparktest.GeneratedSection(t, filepath.Join("..", "..", "docs", "recipes", "rules.md"), tableBegin, tableEnd, rulesTable(),
		"rules table", *update)
}
