package delta

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sparkdx/sparkdx/internal/analyze"
	"github.com/sparkdx/sparkdx/internal/diagnose"
	"github.com/sparkdx/sparkdx/internal/model"
	"github.com/sparkdx/sparkdx/internal/replay"
	"github.com/sparkdx/sparkdx/internal/reportv1"
	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
	"github.com/sparkdx/sparkdx/internal/test/sparktest"
)

// realLogs are plain event logs from Spark's own test suite.
var realLogs = []string{
	"local-1430917381534",
	"app-20161116163331-0000",
	"application_1553914137147_0018",
	"local-1642039451826",
	"local-1430917381535_1",
	"local-1430917381535_2",
}

type analysed struct {
	attempt *model.Attempt
	report  *reportv1.Report
}

func analyse(t *testing.T, name string) analysed {
	t.Helper()
	path := sparktest.Path(t, "spark-events", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, stats, err := replay.Read(context.Background(), f, replay.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	res := analyze.Analyze(a)
	findings := diagnose.Run(&diagnose.Pass{Attempt: a, Result: res}, diagnose.All)
	return analysed{a, reportv1.Build(a, res, findings, reportv1.Log{Path: path, Codec: "none", Bytes: stats.Bytes, Events: stats.Events})}
}

// secrets are injected into one app's properties: none may reach a table.
var secrets = map[string]string{
	"spark.hadoop.fs.s3a.secret.key":       "s3cr3t-AKIA-VALUE-0001",
	"spark.ssl.keyPassword":                "hunter2-VALUE-0002",
	"spark.custom.connection":              "jdbc:pg://u:pw@h/VALUE-0003", // caught by the app's own regex below
	"spark.authenticate.secret.file.token": "VALUE-0004",
	"spark.plain.setting":                  "mytoken=VALUE-0005", // value matches
}

func TestTablesFromRealLogs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	red, err := NewRedactor("")
	if err != nil {
		t.Fatal(err)
	}
	var apps []analysed
	for _, name := range realLogs {
		apps = append(apps, analyse(t, name))
	}
	props := &apps[0].attempt.Env.SparkProperties
	for k, v := range secrets {
		*props = append(*props, [2]string{k, v})
	}
	*props = append(*props, [2]string{"spark.redaction.regex", "(?i)connection"})

	// One more finding, with list and evidence columns to check exactly.
	apps[0].report.Findings = append(apps[0].report.Findings, diagnose.Finding{Rule: "data-skew", Severity: diagnose.Warning,
		Title: "skewed stage", Detail: "max/median 9.5", StageIDs: []int{1, 2}, ExecutorIDs: []string{"3"},
		Evidence: map[string]any{"ratio": 9.5}, Recipe: "docs/recipes/troubleshoot/data-skew.md"})
	for round := range 2 {
		ts, err := OpenTables(ctx, DirLocator(dir), Options{CheckpointInterval: 4, EngineInfo: "sparkdx-test"})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range apps {
			if got, want := ts.HasApp(a.report.App.ID, a.report.App.AttemptID), round == 1; got != want {
				t.Errorf("round %d, %s: HasApp got %v, want %v", round, a.report.App.ID, got, want)
			}
			written, err := ts.WriteApp(ctx, RowsOf(a.attempt, a.report, red, time.Now()))
			if err != nil {
				t.Fatal(err)
			}
			if want := round == 0; written != want {
				t.Errorf("round %d, %s: got written=%v, want %v", round, a.report.App.ID, written, want)
			}
		}
	}

	db := openDuckDB(t)
	tables := map[string]*sqlTable{}
	for _, name := range TableNames() {
		root := filepath.Join(dir, name)
		tb := checkTable(t, root)
		duckStats(t, db, root, tb)
		tables[name] = &sqlTable{root: root, tb: tb}
	}
	for _, a := range apps {
		r := a.report
		key := fmt.Sprintf("app_id = '%s' AND attempt_id = '%s'", r.App.ID, r.App.AttemptID)
		counts := []struct {
			table string
			want  int
		}{
			{TableApps, 1}, {TableJobs, len(a.attempt.Jobs)}, {TableStages, len(r.Stages)},
			{TableExecutors, len(r.Executors)}, {TableFindings, len(r.Findings)},
		}
		for _, c := range counts {
			if got := tables[c.table].count(t, db, key); got != c.want {
				t.Errorf("%s %s: got %d rows, want %d", r.App.ID, c.table, got, c.want)
			}
		}
		for _, s := range r.Stages {
			q := fmt.Sprintf("SELECT name, status, num_tasks, duration_ms, task_duration_p95_ms, gc_time_ms, input_bytes, shuffle_read_bytes, shuffle_write_bytes, memory_spilled_bytes, skew_duration_max_over_median FROM %s WHERE %s AND stage_id = %d AND stage_attempt_id = %d",
				tables[TableStages].from(), key, s.StageID, s.AttemptID)
			var got reportv1.Stage
			if err := db.QueryRow(q).Scan(&got.Name, &got.Status, &got.NumTasks, &got.DurationMs, &got.TaskDurationMs.P95, &got.GCTimeMs,
				&got.InputBytes, &got.ShuffleReadBytes, &got.ShuffleWriteBytes, &got.MemorySpilledBytes, &got.Skew.DurationMaxOverMedian); err != nil {
				t.Fatalf("%s stage %d.%d: %v", r.App.ID, s.StageID, s.AttemptID, err)
			}
			want := reportv1.Stage{Name: s.Name, Status: s.Status, NumTasks: s.NumTasks, DurationMs: s.DurationMs,
				TaskDurationMs: reportv1.Quantiles{P95: s.TaskDurationMs.P95}, GCTimeMs: s.GCTimeMs, InputBytes: s.InputBytes,
				ShuffleReadBytes: s.ShuffleReadBytes, ShuffleWriteBytes: s.ShuffleWriteBytes, MemorySpilledBytes: s.MemorySpilledBytes,
				Skew: reportv1.Skew{DurationMaxOverMedian: s.Skew.DurationMaxOverMedian}}
			if got != want {
				t.Errorf("%s stage %d.%d: got %+v, want %+v", r.App.ID, s.StageID, s.AttemptID, got, want)
			}
		}
		for _, e := range r.Executors {
			q := fmt.Sprintf("SELECT host, cores, epoch_ms(added_time), peak_jvm_heap_bytes, task_time_ms, gc_time_ms FROM %s WHERE %s AND executor_id = '%s'",
				tables[TableExecutors].from(), key, e.ID)
			var got reportv1.Executor
			if err := db.QueryRow(q).Scan(&got.Host, &got.Cores, &got.AddedTime, &got.PeakJVMHeapBytes, &got.TaskTimeMs, &got.GCTimeMs); err != nil {
				t.Fatalf("%s executor %s: %v", r.App.ID, e.ID, err)
			}
			want := reportv1.Executor{Host: e.Host, Cores: e.Cores, AddedTime: e.AddedTime, PeakJVMHeapBytes: e.PeakJVMHeapBytes,
				TaskTimeMs: e.TaskTimeMs, GCTimeMs: e.GCTimeMs}
			if got != want {
				t.Errorf("%s executor %s: got %+v, want %+v", r.App.ID, e.ID, got, want)
			}
		}
		var name, user string
		var start, dur int64
		var ph analyze.Phases
		q := fmt.Sprintf("SELECT name, \"user\", epoch_ms(start_time), duration_ms, resource_wait_ms, compute_ms, output_write_ms, driver_only_ms FROM %s WHERE %s", tables[TableApps].from(), key)
		if err := db.QueryRow(q).Scan(&name, &user, &start, &dur, &ph.ResourceWaitMs, &ph.ComputeMs, &ph.OutputWriteMs, &ph.DriverOnlyMs); err != nil {
			t.Fatal(err)
		}
		ph.FirstExecutorDelayMs = r.Phases.FirstExecutorDelayMs // not a column
		if ph != r.Phases {
			t.Errorf("%s apps row phases: got %+v, want %+v", r.App.ID, ph, r.Phases)
		}
		if name != r.App.Name || user != r.App.User || start != r.App.StartTime || dur != r.App.DurationMs {
			t.Errorf("%s apps row: got %q %q %d %d, want %q %q %d %d", r.App.ID, name, user, start, dur,
				r.App.Name, r.App.User, r.App.StartTime, r.App.DurationMs)
		}
		var coreH, memH float64
		q = fmt.Sprintf("SELECT core_hours, memory_gb_hours FROM %s WHERE %s", tables[TableApps].from(), key)
		if err := db.QueryRow(q).Scan(&coreH, &memH); err != nil {
			t.Fatal(err)
		}
		if want := r.ResourceCost.Total; coreH != want.CoreHours || memH != want.MemoryGBHours || coreH <= 0 {
			t.Errorf("%s apps row cost: got %v core-h, %v GB-h, want the report's %v, %v", r.App.ID, coreH, memH, want.CoreHours, want.MemoryGBHours)
		}
	}
	if got := tables[TableFindings].count(t, db, "rule = 'data-skew' AND stage_ids = [1, 2] AND evidence = '{\"ratio\":9.5}'"); got != 1 {
		t.Errorf("findings: got %d data-skew rows with stage ids and evidence, want 1", got)
	}

	// Redaction: every injected secret is redacted, and no secret value
	// appears in any column of any table.
	for k := range secrets {
		var v string
		q := fmt.Sprintf("SELECT spark_properties['%s'] FROM %s WHERE app_id = '%s'", k, tables[TableApps].from(), apps[0].report.App.ID)
		if err := db.QueryRow(q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != Redacted {
			t.Errorf("spark_properties[%s] = %q, want %q", k, v, Redacted)
		}
	}
	for name, tb := range tables {
		if len(tb.tb.Files) == 0 {
			continue
		}
		var text string
		q := fmt.Sprintf("SELECT coalesce(string_agg(t::VARCHAR, '\n'), '') FROM %s t", tb.from())
		if err := db.QueryRow(q).Scan(&text); err != nil {
			t.Fatal(err)
		}
		for _, v := range secrets {
			if strings.Contains(text, v) {
				t.Errorf("table %s holds secret %q", name, v)
			}
		}
	}
}

type sqlTable struct {
	root string
	tb   *deltacheck.Table
}

// from is a FROM clause over the table's live files (an empty relation
// when there are none).
func (s *sqlTable) from() string {
	if len(s.tb.Files) == 0 {
		return "(SELECT NULL AS app_id, NULL AS attempt_id WHERE false)"
	}
	return fmt.Sprintf("read_parquet(%s, hive_partitioning=false)", quoteList(s.root, s.tb.Files))
}

func (s *sqlTable) count(t *testing.T, db *sql.DB, where string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", s.from(), where)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
