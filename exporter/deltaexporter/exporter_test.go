package deltaexporter

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/sparkdx/sparkdx/internal/export/delta"
	"github.com/sparkdx/sparkdx/internal/test/deltacheck"
)

var t0 = time.Date(2026, 11, 21, 23, 59, 59, 0, time.UTC)

// metrics builds a batch like the sparkdx agent's: jvm.memory.used per
// pool (int gauge), process.cpu.time (double sum) and a histogram.
func metrics(app, executor string, at time.Time, heap int64) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "sparkdx-agent")
	rm.Resource().Attributes().PutStr("host.name", "node-1")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	g := ms.AppendEmpty()
	g.SetName("jvm.memory.used")
	g.SetUnit("By")
	gauge := g.SetEmptyGauge()
	for _, pool := range []string{"G1 Eden Space", "G1 Old Gen"} {
		dp := gauge.DataPoints().AppendEmpty()
		dp.SetTimestamp(pcommon.NewTimestampFromTime(at))
		dp.SetIntValue(heap)
		dp.Attributes().PutStr("spark.app.id", app)
		dp.Attributes().PutStr("spark.executor.id", executor)
		dp.Attributes().PutStr("spark.role", "executor")
		dp.Attributes().PutStr("jvm.memory.pool.name", pool)
		dp.Attributes().PutInt("process.pid", 4242)
	}
	s := ms.AppendEmpty()
	s.SetName("process.cpu.time")
	s.SetUnit("s")
	dp := s.SetEmptySum().DataPoints().AppendEmpty()
	dp.SetTimestamp(pcommon.NewTimestampFromTime(at))
	dp.SetDoubleValue(12.5)
	dp.Attributes().PutStr("spark.app.id", app)
	h := ms.AppendEmpty()
	h.SetName("jvm.gc.duration")
	h.SetUnit("s")
	hp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
	hp.SetTimestamp(pcommon.NewTimestampFromTime(at))
	hp.SetCount(7)
	hp.SetSum(0.25)
	return md
}

func TestRows(t *testing.T) {
	rows, err := Rows(metrics("app-1", "3", t0, 1<<20), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join([]string{r.Date, r.Metric, r.Unit, r.Host, r.Service, r.AppID, r.ExecutorID, r.Role,
			r.Attributes["jvm.memory.pool.name"], r.Attributes["process.pid"]}, "|")+"|"+formatFloat(r.Value))
		if !r.Time.Equal(t0) {
			t.Errorf("%s: got time %v, want %v", r.Metric, r.Time, t0)
		}
	}
	want := []string{
		"2026-11-21|jvm.memory.used|By|node-1|sparkdx-agent|app-1|3|executor|G1 Eden Space|4242|1048576",
		"2026-11-21|jvm.memory.used|By|node-1|sparkdx-agent|app-1|3|executor|G1 Old Gen|4242|1048576",
		"2026-11-21|process.cpu.time|s|node-1|sparkdx-agent|app-1||||" + "|12.5",
		"2026-11-21|jvm.gc.duration.count|1|node-1|sparkdx-agent||||||7",
		"2026-11-21|jvm.gc.duration.sum|s|node-1|sparkdx-agent||||||0.25",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func TestConfigValidate(t *testing.T) {
	good := createDefaultConfig().(*Config)
	good.Path = "/tmp/lake"
	tests := []struct {
		name string
		edit func(c *Config)
		want string // "" for valid
	}{
		{"dir", func(c *Config) {}, ""},
		{"s3", func(c *Config) { c.Path = "s3://lake/sparkdx"; c.S3.Endpoint = "http://127.0.0.1:9000" }, ""},
		{"s3a", func(c *Config) { c.Path = "s3a://lake/sparkdx"; c.S3.PathStyle = true }, ""},
		{"no path", func(c *Config) { c.Path = "" }, "path: required"},
		{"no bucket", func(c *Config) { c.Path = "s3:///x" }, "no bucket"},
		{"other scheme", func(c *Config) { c.Path = "gs://b/x" }, "want a directory"},
		{"bad endpoint", func(c *Config) { c.S3.Endpoint = "minio:9000" }, "s3.endpoint"},
		{"zero interval", func(c *Config) { c.FlushInterval = 0 }, "flush_interval"},
		{"negative maintenance interval", func(c *Config) { c.MaintainInterval = -time.Second }, "maintain_interval"},
		{"zero rows", func(c *Config) { c.MaxRows = 0 }, "max_rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *good
			tt.edit(&c)
			err := c.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// readSamples replays the samples table and reads its live files.
func readSamples(t *testing.T, root string) (*deltacheck.Table, []delta.SampleRow) {
	t.Helper()
	tb, err := deltacheck.Check(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	var rows []delta.SampleRow
	for _, f := range tb.Files {
		got, err := parquet.ReadFile[delta.SampleRow](filepath.Join(root, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			if r.Date != f.PartitionValues["date"] {
				t.Errorf("%s: row date %s in partition %s", f.Path, r.Date, f.PartitionValues["date"])
			}
		}
		rows = append(rows, got...)
	}
	return tb, rows
}

func TestExporterWritesSamples(t *testing.T) {
	dir := t.TempDir()
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.Path = dir
	cfg.FlushInterval = 50 * time.Millisecond
	cfg.MaxRows = 12
	cfg.CheckpointInterval = 3
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	exp, err := f.CreateMetrics(ctx, exportertest.NewNopSettings(component.MustNewType(TypeStr)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	const batches = 20
	for i := range batches {
		// Crossing midnight: the batches land in two date partitions.
		if err := exp.ConsumeMetrics(ctx, metrics("app-1", "1", t0.Add(time.Duration(i)*100*time.Millisecond), int64(i))); err != nil {
			t.Fatal(err)
		}
		if i == batches/2 {
			time.Sleep(3 * cfg.FlushInterval) // let the ticker commit a partial batch
		}
	}
	if err := exp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	tb, rows := readSamples(t, filepath.Join(dir, delta.TableSamples))
	if got, want := len(rows), batches*5; got != want {
		t.Fatalf("got %d rows, want %d", got, want)
	}
	if tb.Rows != int64(len(rows)) {
		t.Errorf("stats say %d rows, files hold %d", tb.Rows, len(rows))
	}
	if tb.Version < 3 || tb.Version > batches {
		t.Errorf("got %d commits for %d batches of 5 rows, max_rows 12: want batching", tb.Version, batches)
	}
	days := map[string]int{}
	var heap []int
	for _, r := range rows {
		days[r.Date]++
		if r.Metric == "jvm.memory.used" && r.Attributes["jvm.memory.pool.name"] == "G1 Old Gen" {
			heap = append(heap, int(r.Value))
		}
	}
	if len(days) != 2 {
		t.Errorf("got date partitions %v, want 2", days)
	}
	sort.Ints(heap)
	for i, v := range heap {
		if v != i {
			t.Fatalf("old-gen samples: got %v, want 0..%d once each", heap, batches-1)
		}
	}
}
