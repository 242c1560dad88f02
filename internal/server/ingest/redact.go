package ingest

import (
	"regexp"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Redacted replaces a secret value, as Spark writes it.
const Redacted = model.Redacted

// redactOnce redacts a live attempt's environment when it is new: an
// environment update replaces the property slices.
func (in *Ingester) redactOnce(e *logEntry, a *model.Attempt) {
	if len(a.Env.SparkProperties) == 0 && len(a.Env.SystemProperties) == 0 {
		return
	}
	id := envID{first(a.Env.SparkProperties), first(a.Env.HadoopProperties), first(a.Env.SystemProperties)}
	if id == e.redacted {
		return
	}
	in.redact(a)
	e.redacted = id
}

// envID identifies an environment by the backing arrays of its lists.
type envID struct{ spark, hadoop, system *[2]string }

func first(ps [][2]string) *[2]string {
	if len(ps) == 0 {
		return nil
	}
	return &ps[0]
}

// redact blanks the values of properties whose key or value matches the
// application's spark.redaction.regex (or the server's), before anything
// is stored or served.
func (in *Ingester) redact(a *model.Attempt) {
	match := matcher(in.cfg.Redaction)
	for _, p := range a.Env.SparkProperties {
		if p[0] == "spark.redaction.regex" && p[1] != Redacted {
			if r, err := regexp.Compile(p[1]); err == nil {
				match = matcher(r)
			}
		}
	}
	for _, props := range [][][2]string{a.Env.SparkProperties, a.Env.HadoopProperties, a.Env.SystemProperties} {
		for i := range props {
			if props[i][0] == "spark.redaction.regex" {
				continue
			}
			if match(props[i][0]) || match(props[i][1]) {
				props[i][1] = Redacted
			}
		}
	}
}

// matcher returns re.MatchString, or for Spark's default pattern an
// equivalent substring test: environments hold hundreds of properties and
// a replay redacts them all, where the backtracking matcher is slow.
func matcher(re *regexp.Regexp) func(string) bool {
	if re.String() != DefaultRedaction {
		return re.MatchString
	}
	return defaultMatch
}

// defaultMatch is (?i)secret|password|token|access[.]key without regexp,
// folding ASCII case only, as Java's (?i) does without UNICODE_CASE.
func defaultMatch(s string) bool {
	l := asciiLower(s)
	return strings.Contains(l, "secret") || strings.Contains(l, "password") || strings.Contains(l, "token") ||
		strings.Contains(l, "access.key")
}

// tags are an application's labels: spark.yarn.tags and spark.sparkdx.tags
// (comma-separated).
func tags(a *model.Attempt) []string {
	var out []string
	for _, p := range a.Env.SparkProperties {
		if p[0] == "spark.yarn.tags" || p[0] == "spark.sparkdx.tags" {
			for _, t := range strings.Split(p[1], ",") {
				if t = strings.TrimSpace(t); t != "" {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
