package ingest

import (
	"strings"

	"github.com/sparkdx/sparkdx/internal/model"
)

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
