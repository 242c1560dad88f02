package delta

import (
	"fmt"
	"regexp"

	"github.com/sparkdx/sparkdx/internal/model"
)

// DefaultRedactionRegex is Spark's default spark.redaction.regex.
const DefaultRedactionRegex = `(?i)secret|password|token|access[.]key`

// Redacted replaces a secret value, as Spark's Utils.redact does.
const Redacted = model.Redacted

// Redactor hides Spark properties whose key or value matches the
// redaction regex, so that secrets never reach a table.
type Redactor struct {
	re *regexp.Regexp
}

// NewRedactor compiles the regex; "" means Spark's default.
func NewRedactor(expr string) (*Redactor, error) {
	if expr == "" {
		expr = DefaultRedactionRegex
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("delta: redaction regex %q: %w", expr, err)
	}
	return &Redactor{re: re}, nil
}

// ForApp returns the redactor an application asked for: its own
// spark.redaction.regex when set (and valid), else r. Spark applies the
// application's regex, so sparkdx does too; r's regex still applies on top.
func (r *Redactor) ForApp(props [][2]string) *Redactor {
	for _, p := range props {
		if p[0] == "spark.redaction.regex" && p[1] != "" {
			if re, err := regexp.Compile("(?:" + p[1] + ")|(?:" + r.re.String() + ")"); err == nil {
				return &Redactor{re: re}
			}
		}
	}
	return r
}

// Value returns v, or Redacted when key or v matches.
func (r *Redactor) Value(key, v string) string {
	if r.re.MatchString(key) || r.re.MatchString(v) {
		return Redacted
	}
	return v
}

// Map returns props as a map with secrets redacted.
func (r *Redactor) Map(props [][2]string) map[string]string {
	m := make(map[string]string, len(props))
	for _, p := range props {
		m[p[0]] = r.Value(p[0], p[1])
	}
	return m
}
