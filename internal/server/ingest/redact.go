package ingest

import (
	"regexp"
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

// Redacted replaces a secret value, as Spark writes it.
const Redacted = "*********(redacted)"

// redact blanks the values of properties whose key or value matches the
// application's spark.redaction.regex (or the server's), before anything
// is stored or served.
func (in *Ingester) redact(a *model.Attempt) {
	re := in.cfg.Redaction
	for _, p := range a.Env.SparkProperties {
		if p[0] == "spark.redaction.regex" && p[1] != Redacted {
			if r, err := regexp.Compile(p[1]); err == nil {
				re = r
			}
		}
	}
	for _, props := range [][][2]string{a.Env.SparkProperties, a.Env.HadoopProperties, a.Env.SystemProperties} {
		for i := range props {
			if props[i][0] == "spark.redaction.regex" {
				continue
			}
			if re.MatchString(props[i][0]) || re.MatchString(props[i][1]) {
				props[i][1] = Redacted
			}
		}
	}
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
