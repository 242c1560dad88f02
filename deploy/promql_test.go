package deploy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// query is one PromQL expression deploy/ ships, and where it comes from.
type query struct {
	where, expr string
}

type dashboard struct {
	UID        string `json:"uid"`
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID      int    `json:"id"`
		Title   string `json:"title"`
		Type    string `json:"type"`
		Targets []struct {
			Expr  string `json:"expr"`
			RefID string `json:"refId"`
		} `json:"targets"`
	} `json:"panels"`
}

func loadDashboards(t *testing.T) map[string]dashboard {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("grafana", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in grafana/: %v", err)
	}
	out := map[string]dashboard{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[f] = d
	}
	return out
}

// labelValues matches a Grafana variable query label_values(SELECTOR, label).
var labelValues = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_]+)\)$`)

// dashboardQueries lists every panel target and every variable's selector.
func dashboardQueries(t *testing.T) []query {
	t.Helper()
	var qs []query
	for f, d := range loadDashboards(t) {
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			q, _ := v.Query.(map[string]any)
			s, _ := q["query"].(string)
			m := labelValues.FindStringSubmatch(s)
			if m == nil {
				t.Errorf("%s variable %s: query %q is not label_values(selector, label)", f, v.Name, s)
				continue
			}
			qs = append(qs, query{f + " variable " + v.Name, "count by (" + m[2] + ") (" + m[1] + ")"})
		}
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				qs = append(qs, query{f + " panel " + p.Title + " " + tg.RefID, tg.Expr})
			}
		}
	}
	return qs
}

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func loadRules(t *testing.T, path string) ruleFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.Unmarshal(b, &rf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rf
}

func ruleQueries(t *testing.T) []query {
	t.Helper()
	var qs []query
	for _, g := range loadRules(t, filepath.Join("prometheus", "sparkdx-rules.yml")).Groups {
		for _, r := range g.Rules {
			qs = append(qs, query{"alert " + r.Alert, r.Expr})
		}
	}
	return qs
}

// fromSpark tells whether a query reads series only a running Spark
// driver gives: Spark's own executor endpoint (metrics_executor_*) or the
// agent's reading of a driver's REST API (spark_executor_storage_memory_*,
// spark_executor_peak_memory_bytes). TestSparkEndpointsAgainstPrometheus
// runs those against a real Spark driver; TestQueriesAgainstPrometheus,
// whose JVMs only look like Spark's, the others.
func fromSpark(expr string) bool {
	for _, s := range []string{"metrics_executor_", "_driver_jvm_pools_", "spark_executor_storage_memory_", "spark_executor_peak_memory_bytes"} {
		if strings.Contains(expr, s) {
			return true
		}
	}
	return false
}

// substitute replaces Grafana's variables with values Prometheus takes:
// every app, executor, host, orchestrator run and task, streaming query; a
// one-minute rate window.
func substitute(expr string) string {
	return strings.NewReplacer(`"$app"`, `".*"`, `"$executor"`, `".*"`, `"$host"`, `".*"`,
		`"$run"`, `".*"`, `"$task"`, `".*"`, `"$query"`, `".*"`,
		"$__rate_interval", "1m", "$__interval", "15s", "$__range", "1h").Replace(expr)
}

// withBool turns every comparison outside label matchers and strings into
// its bool form, so an alert expression returns its series (0 or 1)
// whether or not the alert would fire: "returns data" then means the
// metrics behind the alert exist.
func withBool(expr string) string {
	var b strings.Builder
	depth, quote := 0, byte(0)
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		b.WriteByte(c)
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(expr) {
				i++
				b.WriteByte(expr[i])
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
		case depth == 0 && (c == '>' || c == '<' || ((c == '=' || c == '!') && i+1 < len(expr) && expr[i+1] == '=')):
			if i+1 < len(expr) && expr[i+1] == '=' {
				i++
				b.WriteByte('=')
			}
			b.WriteString(" bool")
		}
	}
	return b.String()
}

func TestWithBool(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`a > 0.9`, `a > bool 0.9`},
		{`a{x!="y",z=~"w"} >= 1 and b < 2`, `a{x!="y",z=~"w"} >= bool 1 and b < bool 2`},
		{`a == 1`, `a == bool 1`},
		{`a{l=">"} != 0`, `a{l=">"} != bool 0`},
		{`rate(x[5m])`, `rate(x[5m])`},
	} {
		if got := withBool(tc.in); got != tc.want {
			t.Errorf("withBool(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The dashboards are well formed: unique uids and panel ids, the app,
// executor and host variables, a datasource variable, and PromQL in every
// panel target.
func TestDashboardsWellFormed(t *testing.T) {
	uids := map[string]string{}
	for f, d := range loadDashboards(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if d.UID == "" || d.Title == "" {
				t.Errorf("got uid %q title %q, want both", d.UID, d.Title)
			}
			if other, dup := uids[d.UID]; dup {
				t.Errorf("uid %s also in %s", d.UID, other)
			}
			uids[d.UID] = f
			var vars []string
			for _, v := range d.Templating.List {
				vars = append(vars, v.Name)
			}
			for _, want := range []string{"datasource", "app", "executor", "host"} {
				if !slices.Contains(vars, want) {
					t.Errorf("got variables %v, want %s among them", vars, want)
				}
			}
			ids := map[int]bool{}
			for _, p := range d.Panels {
				if ids[p.ID] {
					t.Errorf("panel id %d twice", p.ID)
				}
				ids[p.ID] = true
				if len(p.Targets) == 0 {
					t.Errorf("panel %q has no queries", p.Title)
				}
				for _, tg := range p.Targets {
					if strings.TrimSpace(tg.Expr) == "" {
						t.Errorf("panel %q target %s: empty expr", p.Title, tg.RefID)
					}
				}
			}
		})
	}
	if len(uids) != 6 {
		t.Errorf("got %d dashboards, want 6", len(uids))
	}
}
