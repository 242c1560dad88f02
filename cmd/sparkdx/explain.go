package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sparkdx/sparkdx/docs/recipes"
	"github.com/sparkdx/sparkdx/internal/diagnose"
)

const explainUsage = "explain [RULE]"

// runExplain prints what a rule detects, its thresholds and their sources,
// and its recipe — all from the binary: the recipes are embedded. Without
// a rule it lists the rules.
func runExplain(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: sparkdx %s\n\nWith RULE, what it detects, its thresholds and its recipe; without, the rules.\n", explainUsage)
	}
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		for _, r := range diagnose.All {
			if _, err := fmt.Fprintf(stdout, "%-24s %s\n", r.ID, r.Title); err != nil {
				return err
			}
		}
		return nil
	case 1:
	default:
		return usageErr("one rule at a time (usage: sparkdx %s)", explainUsage)
	}
	id := fs.Arg(0)
	var rule *diagnose.Rule
	var ids []string
	for _, r := range diagnose.All {
		ids = append(ids, r.ID)
		if r.ID == id {
			rule = r
		}
	}
	if rule == nil {
		return usageErr("unknown rule %q; the rules are: %s", id, strings.Join(ids, ", "))
	}
	recipe, err := recipes.Read(rule.Recipe)
	if err != nil {
		return err // a rule without its recipe is a build defect, not the user's
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s\n\n%s\n\nThresholds\n", rule.ID, rule.Title, rule.Doc)
	for _, th := range rule.Thresholds {
		fmt.Fprintf(&b, "  %s: warning %g, critical %g\n", th.Metric, th.Warning, th.Critical)
		if th.Gate != "" {
			fmt.Fprintf(&b, "    gate: %s\n", th.Gate)
		}
		fmt.Fprintf(&b, "    source: %s\n", th.Source)
	}
	if s, ok := recipes.Rule(rule.ID); ok {
		fmt.Fprintf(&b, "\nFrom docs/recipes/rules.md\n\n%s", s)
	}
	fmt.Fprintf(&b, "\nRecipe: docs/recipes/%s\n\n%s", rule.Recipe, recipe)
	_, err = io.WriteString(stdout, b.String())
	return err
}
