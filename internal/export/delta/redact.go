package delta

import (
	"fmt"

	"github.com/sparkdx/sparkdx/internal/redact"
)

// Redacted replaces a secret value, as Spark's Utils.redact does.
const Redacted = redact.Replacement

// Redactor hides secrets in the property maps written to a table. The
// replay already redacted the model (package redact); a table applies the
// same rules again with its own --redaction-regex, so that a model from
// elsewhere cannot carry a secret into a table either.
type Redactor struct {
	rules *redact.Rules
}

// NewRedactor compiles the property regex; "" means Spark's default
// (redact.SparkDefault).
func NewRedactor(expr string) (*Redactor, error) {
	rules, err := redact.New(expr)
	if err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	return &Redactor{rules: rules}, nil
}

// ForApp returns the redactor an application asked for: its own
// spark.redaction.regex, when set and valid, applies on top of r's.
func (r *Redactor) ForApp(props [][2]string) *Redactor {
	if rules := r.rules.ForApp(props); rules != r.rules {
		return &Redactor{rules: rules}
	}
	return r
}

// Value returns v, or what redact.Rules.Property keeps of it.
func (r *Redactor) Value(key, v string) string { return r.rules.Property(key, v) }

// Map returns props as a map with secrets redacted.
func (r *Redactor) Map(props [][2]string) map[string]string {
	m := make(map[string]string, len(props))
	for _, p := range props {
		m[p[0]] = r.Value(p[0], p[1])
	}
	return m
}
