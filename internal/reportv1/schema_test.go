package reportv1_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/eventlog"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "docs", "schema", "sparkdx.report.v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return s
}

// build replays, analyzes and diagnoses every log under dir.
func build(t *testing.T, dir string) []*reportv1.Report {
	t.Helper()
	logs, err := eventlog.Open(context.Background(), dir, eventlog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*reportv1.Report
	for _, l := range logs {
		a, st, err := replay.Log(context.Background(), l, replay.Options{})
		if err != nil {
			t.Fatalf("%s: %v", l.Path, err)
		}
		res := analyze.Analyze(a)
		fs := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All)
		out = append(out, reportv1.Build(a, res, fs, reportv1.Log{Path: l.Path, Codec: l.Codec.String(), Bytes: st.Bytes,
			Events: st.Events, BadLines: st.BadLines, UnknownEvents: st.Unknown, Truncated: st.Truncated}))
	}
	return out
}

// encode marshals each report and decodes it the way the validator reads
// JSON.
func encode(t *testing.T, rs []*reportv1.Report) []any {
	t.Helper()
	var docs []any
	for _, r := range rs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, v)
	}
	return docs
}

// TestReportsValidate validates the report of every shared log, each
// line of a directory's output.
func TestReportsValidate(t *testing.T) {
	s := compileSchema(t)
	for _, dir := range []string{"spark-events", "extra/historical/spark-events", "extra/sql-core-spark-events",
		"extra/spark-events-broken/last-attempt-incomplete", "compressed"} {
		rs := build(t, sparktest.Path(t, dir))
		if len(rs) == 0 {
			t.Fatalf("%s: no logs", dir)
		}
		for i, doc := range encode(t, rs) {
			if err := s.Validate(doc); err != nil {
				t.Errorf("%s: %v", rs[i].Log.Path, err)
			}
		}
	}
}

// TestScenarioReportsValidate validates the report of every committed
// scenario log: real Spark 3.5 and 4.3, and the findings rules fold.
func TestScenarioReportsValidate(t *testing.T) {
	s := compileSchema(t)
	logs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*", "spark-*", "*"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no scenario logs: %v", err)
	}
	for _, path := range logs {
		if strings.HasSuffix(path, "agent") {
			continue
		}
		rs := build(t, path)
		for i, doc := range encode(t, rs) {
			if err := s.Validate(doc); err != nil {
				t.Errorf("%s: %v", rs[i].Log.Path, err)
			}
		}
	}
}

// TestSchemaRejects checks the schema holds the stable keys: a renamed,
// missing or mistyped key fails validation.
func TestSchemaRejects(t *testing.T) {
	s := compileSchema(t)
	rs := build(t, sparktest.Path(t, "spark-events", "app-20161115172038-0000"))
	if len(rs) != 1 {
		t.Fatalf("got %d reports, want 1", len(rs))
	}
	b, err := json.Marshal(rs[0])
	if err != nil {
		t.Fatal(err)
	}
	good := string(b)
	for name, edit := range map[string]func(map[string]any){
		"renamed stage key": func(m map[string]any) {
			st := m["stages"].([]any)[0].(map[string]any)
			st["stageID"] = st["stageId"]
			delete(st, "stageId")
		},
		"missing phases":    func(m map[string]any) { delete(m, "phases") },
		"extra phase key":   func(m map[string]any) { m["phases"].(map[string]any)["ioMs"] = 1 },
		"unknown severity":  func(m map[string]any) { m["findings"].([]any)[0].(map[string]any)["severity"] = "error" },
		"string duration":   func(m map[string]any) { m["app"].(map[string]any)["durationMs"] = "5s" },
		"wrong schema name": func(m map[string]any) { m["schema"] = "sparkdx.report/v2" },
		"unknown phase":     func(m map[string]any) { m["timeline"].([]any)[0].(map[string]any)["phase"] = "io" },
		"unknown loss cause": func(m map[string]any) {
			m["executorDetails"].([]any)[0].(map[string]any)["lossCause"] = "gremlins"
		},
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(good), &m); err != nil {
				t.Fatal(err)
			}
			if len(m["findings"].([]any)) == 0 {
				t.Fatal("fixture log has no findings")
			}
			edit(m)
			bad, _ := json.Marshal(m)
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(bad)))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); err == nil {
				t.Errorf("got valid, want a validation error")
			}
		})
	}
}
