package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparkdx/sparkdx/internal/regress"
	"github.com/sparkdx/sparkdx/internal/server"
)

// validateCase is one command line and the error its Validate gives ("" for
// none).
type validateCase struct {
	name string
	args []string
	want string
}

// checkValidate parses each case's flags as the command does and checks
// what Validate says of them.
func checkValidate[C interface{ Validate() error }](t *testing.T, cases []validateCase, parse func(fs *flag.FlagSet, args []string) (C, error)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c, err := parse(fs, tc.args)
			if err != nil {
				t.Fatalf("parse %q: %v", tc.args, err)
			}
			got := ""
			if err := c.Validate(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Validate of %q: got %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

func TestServeConfigValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	logs := []string{"--event-logs", dir}
	with := func(extra ...string) []string { return append(append([]string{}, logs...), extra...) }
	checkValidate(t, []validateCase{
		{"fine", with(), ""},
		{"s3 root not stat'ed", []string{"--event-logs", "s3://bucket/prefix"}, ""},
		{"sharded with peers", with("--shard", "1/2", "--peers", "http://a:1, http://b:1"), ""},
		{"no roots", nil, serveUsage},
		{"operand", with("extra"), serveUsage},
		{"missing root", []string{"--event-logs", missing}, "--event-logs " + missing + ": stat " + missing + ": no such file or directory"},
		{"root is a file", []string{"--event-logs", file}, "--event-logs " + file + ": not a directory"},
		{"bad redaction", with("--redaction-regex", "("), "--redaction-regex: redaction regex \"(\": error parsing regexp: missing closing ): `(`"},
		{"shard out of range", with("--shard", "3/2"), "--shard: shard 3/2: want 0 ≤ I < N"},
		{"shard not I/N", with("--shard", "x"), `--shard: shard "x": want I/N, as 0/2`},
		{"peers without shard", with("--peers", "http://a,http://b"), "--peers needs --shard I/N with N > 1"},
		{"peers too few", with("--shard", "0/2", "--peers", "http://a"), "--peers: peers: 1 URLs for 2 shards: list every instance, this one included, in shard order"},
		{"peer not http", with("--shard", "0/2", "--peers", "http://a,ftp://b"), `--peers: peers: "ftp://b": want an http:// or https:// URL`},
		{"metrics max 0", with("--metrics-max-finished", "0"), "--metrics-max-finished 0: must be at least 1"},
		{"negative price", with("--price-gb-hour", "-1"), "--price-gb-hour -1: want a number ≥ 0"},
		{"missing price file", with("--price-file", missing), "--price-file: open " + missing + ": no such file or directory"},
		{"empty price file", with("--price-file", file), "--price-file " + file + ": price file names no price: want coreHour, gbHour or instanceTypes"},
		{"bad allowed host", with("--allowed-hosts", "a b"), `--allowed-hosts: allowed host "a b": want a host name, [IPv6] or .domain, with an optional :port`},
		{"first error wins", with("--metrics-max-finished", "0", "--shard", "x"), `--shard: shard "x": want I/N, as 0/2`},
		{"regression tuned", with("--regression-runs", "20", "--regression-min-runs", "5", "--regression-ratio", "1.5",
			"--regression-deviations", "2", "--regression-min-added", "1m", "--regression-explain", "3"), ""},
		{"regression min above runs", with("--regression-runs", "3", "--regression-min-runs", "4"), "--regression-*: regression baseline of 3 runs, at least 4: want 1 ≤ min ≤ runs"},
		{"regression ratio below 1", with("--regression-ratio", "0.9"), "--regression-*: regression ratio: want a number ≥ 1"},
		{"regression negative minimum", with("--regression-min-added", "-1s"), "--regression-*: regression minimum: want a duration ≥ 0"},
		{"regression explain 0", with("--regression-explain", "0"), "--regression-explain 0: must be at least 1"},
	}, func(fs *flag.FlagSet, args []string) (*serveConfig, error) {
		c := serveFlags(fs)
		if err := fs.Parse(flagsFirst(fs, args)); err != nil {
			return nil, err
		}
		c.parsed(fs)
		return c, nil
	})
}

func TestAgentConfigValidate(t *testing.T) {
	checkValidate(t, []validateCase{
		{"defaults", nil, ""},
		{"no listener", []string{"--listen", ""}, ""},
		{"operand", []string{"extra"}, `unexpected arguments ["extra"]; usage: sparkdx ` + agentUsage},
		{"format", []string{"--format", "text"}, `--format "text": only json is supported`},
		{"interval 0", []string{"--interval", "0s"}, "--interval 0s: must be positive"},
		{"negative rest interval", []string{"--spark-rest-interval", "-1s"}, "--spark-rest-interval -1s: must not be negative (0: never)"},
		{"bad redaction", []string{"--redaction-regex", "("}, "--redaction-regex: redaction regex \"(\": error parsing regexp: missing closing ): `(`"},
		{"bad allowed host", []string{"--allowed-hosts", "a b"}, `--allowed-hosts: allowed host "a b": want a host name, [IPv6] or .domain, with an optional :port`},
		{"first error wins", []string{"--interval", "0s", "--format", "text"}, `--format "text": only json is supported`},
	}, func(fs *flag.FlagSet, args []string) (*agentConfig, error) {
		c := agentFlags(fs)
		err := fs.Parse(flagsFirst(fs, args))
		c.operands = fs.Args()
		return c, err
	})
}

func TestAnalyzeConfigValidate(t *testing.T) {
	const otlp = "--otlp-endpoint=http://127.0.0.1:1"
	checkValidate(t, []validateCase{
		{"one log", []string{"x"}, ""},
		{"stdin once", []string{"-", "x"}, ""},
		{"with otlp", []string{otlp, "x"}, ""},
		{"no log", nil, analyzeUsage},
		{"format", []string{"--format", "xml", "x"}, "--format xml: want text, json or html"},
		{"no log before format", []string{"--format", "xml"}, analyzeUsage},
		{"fail-on info", []string{"--fail-on", "info", "x"}, `--fail-on "info": want warning or critical`},
		{"fail-on unknown", []string{"--fail-on", "bad", "x"}, `--fail-on "bad": want warning or critical`},
		{"negative price", []string{"--price-core-hour", "-1", "x"}, "--price-core-hour -1: want a number ≥ 0"},
		{"price before usage", []string{"--price-gb-hour", "-1"}, "--price-gb-hour -1: want a number ≥ 0"},
		{"otlp protocol", []string{otlp, "--otlp-protocol", "xx", "x"}, `otlp: protocol "xx": want grpc or http/protobuf`},
		{"otlp sampling", []string{otlp, "--otlp-task-sampling", "2", "x"}, "otlp: taskSamplingRatio 2: want 0 to 1"},
		{"otlp protocol unchecked without endpoint", []string{"--otlp-protocol", "xx", "x"}, ""},
		{"bad redaction", []string{"--redaction-regex", "(", "x"}, "--redaction-regex: redaction regex \"(\": error parsing regexp: missing closing ): `(`"},
		{"stdin twice", []string{"-", "x", "-"}, "- (standard input) given twice"},
	}, func(fs *flag.FlagSet, args []string) (*analyzeConfig, error) {
		c := analyzeFlags(fs)
		err := fs.Parse(flagsFirst(fs, args))
		c.logs = fs.Args()
		return c, err
	})
}

func TestHeapConfigValidate(t *testing.T) {
	checkValidate(t, []validateCase{
		{"one dump", []string{"a.hprof"}, ""},
		{"two dumps, html", []string{"--format", "html", "a.hprof", "b.hprof"}, ""},
		{"top 0: all classes", []string{"--top", "0", "a.hprof"}, ""},
		{"format", []string{"--format", "xml", "a.hprof"}, `--format "xml": want text, json or html`},
		{"negative top", []string{"--top", "-1", "a.hprof"}, "--top -1: want 0 or more"},
		{"no dump", nil, "usage: sparkdx " + heapUsage},
		{"three dumps", []string{"a", "b", "c"}, "usage: sparkdx " + heapUsage},
		{"oops", []string{"--compressed-oops", "maybe", "a.hprof"}, `--compressed-oops "maybe": want auto, true or false`},
		{"class pointers", []string{"--compressed-class-pointers", "x", "a.hprof"}, `--compressed-class-pointers "x": want auto, true or false`},
		{"first error wins", []string{"--top", "-1", "--format", "xml"}, `--format "xml": want text, json or html`},
	}, func(fs *flag.FlagSet, args []string) (*heapConfig, error) {
		c := heapFlags(fs)
		err := fs.Parse(flagsFirst(fs, args))
		c.dumps = fs.Args()
		return c, err
	})
}

func TestDeltaConfigValidate(t *testing.T) {
	checkValidate(t, []validateCase{
		{"optimize", []string{"optimize", "dir"}, ""},
		{"vacuum dry run", []string{"vacuum", "--dry-run", "s3://b/p"}, ""},
		{"clean-log", []string{"clean-log", "--retention", "1h", "dir"}, ""},
		{"no root", []string{"vacuum"}, "one table root (usage: sparkdx " + deltaUsage + ")"},
		{"two roots", []string{"vacuum", "a", "b"}, "one table root (usage: sparkdx " + deltaUsage + ")"},
		{"unknown operation", []string{"compact", "dir"}, `unknown delta operation "compact" (usage: sparkdx ` + deltaUsage + ")"},
		{"roots before the operation", []string{"compact"}, "one table root (usage: sparkdx " + deltaUsage + ")"},
	}, func(fs *flag.FlagSet, args []string) (*deltaConfig, error) {
		c := deltaCmdFlags(fs)
		c.op = args[0]
		err := fs.Parse(flagsFirst(fs, args[1:]))
		c.roots = fs.Args()
		return c, err
	})
}

// TestServeRegressionFlags: the regression flags reach the config serve
// hands the server, defaults being regress.DefaultConfig's.
func TestServeRegressionFlags(t *testing.T) {
	parse := func(args ...string) *serveConfig {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		c := serveFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		c.parsed(fs)
		return c
	}
	if c := parse(); c.regression != regress.DefaultConfig() || c.explainRuns != server.DefaultExplainRuns {
		t.Errorf("defaults: got %+v, explain %d; want %+v, %d", c.regression, c.explainRuns, regress.DefaultConfig(), server.DefaultExplainRuns)
	}
	c := parse("--regression-runs", "20", "--regression-min-runs", "5", "--regression-ratio", "1.5",
		"--regression-deviations", "2", "--regression-min-added", "1m30s", "--regression-explain", "3")
	want := regress.Config{Runs: 20, MinRuns: 5, Ratio: 1.5, Sigmas: 2, MinDeltaMs: 90_000}
	if c.regression != want || c.explainRuns != 3 {
		t.Errorf("got %+v, explain %d; want %+v, 3", c.regression, c.explainRuns, want)
	}
}
