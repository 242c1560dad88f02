package deltaexporter

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/sparkdx/sparkdx/internal/export/delta"
)

type deltaExporter struct {
	cfg    *Config
	logger *zap.Logger
	loc    delta.Locator

	// failures counts flushes that failed; their rows stay buffered.
	failures metric.Int64Counter

	batcher *delta.Batcher[delta.SampleRow]
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

func newExporter(cfg *Config, set exporter.Settings) (*deltaExporter, error) {
	loc, err := delta.Locate(cfg.Path, cfg.S3.config())
	if err != nil {
		return nil, err
	}
	failures, err := set.MeterProvider.Meter("github.com/sparkdx/sparkdx/exporter/deltaexporter").Int64Counter(
		"sparkdx_delta_flush_failures", metric.WithDescription("Delta commits of buffered samples that failed (rows kept for the next flush)."))
	if err != nil {
		return nil, err
	}
	return &deltaExporter{cfg: cfg, logger: set.Logger, loc: loc, failures: failures}, nil
}

func (e *deltaExporter) start(ctx context.Context, _ component.Host) error {
	tbl, err := delta.Open[delta.SampleRow](ctx, e.loc(delta.TableSamples), delta.Options{
		Name: delta.TableSamples, Description: "sparkdx: metric samples (agent, OTLP)", PartitionBy: []string{"date"},
		CheckpointInterval: e.cfg.CheckpointInterval, EngineInfo: "sparkdx-deltaexporter",
	})
	if err != nil {
		return fmt.Errorf("delta exporter: %s: %w", e.cfg.Path, err)
	}
	e.batcher = delta.NewBatcher(tbl, e.cfg.MaxRows, e.cfg.FlushInterval)
	runCtx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	if e.cfg.MaintainInterval > 0 {
		e.done.Go(func() { every(runCtx, e.cfg.MaintainInterval, func() { e.maintain(runCtx, tbl) }) })
	}
	e.done.Go(func() { every(runCtx, e.cfg.FlushInterval, func() { e.flush(runCtx) }) })
	return nil
}

// every calls f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			f()
		}
	}
}

// maintain compacts, vacuums and cleans the log of the samples table once;
// several collectors may do so on one table (a rewrite that conflicts with
// another is dropped and retried next round).
func (e *deltaExporter) maintain(ctx context.Context, tbl *delta.Table[delta.SampleRow]) {
	for _, r := range delta.Maintain(ctx, []delta.NamedTable{{Name: delta.TableSamples, Table: tbl}}) {
		if r.Err != nil {
			if ctx.Err() == nil {
				e.logger.Warn("delta maintenance failed; the next round retries", zap.Error(r.Err))
			}
			continue
		}
		e.logger.Info("delta maintenance", zap.Int("filesBefore", r.Optimize.FilesBefore), zap.Int("filesAfter", r.Optimize.FilesAfter),
			zap.Int("vacuumed", len(r.Vacuum.Deleted)), zap.Int("logEntriesDeleted", len(r.CleanLog.Deleted)))
	}
}

func (e *deltaExporter) flush(ctx context.Context) {
	if err := e.batcher.Flush(ctx); err != nil {
		e.failures.Add(ctx, 1)
		e.logger.Warn("delta commit failed; rows kept for the next flush", zap.Int("rows", e.batcher.Pending()), zap.Error(err))
	}
}

// consume buffers the data points as rows; commits happen on the flush
// interval or when max_rows rows wait. A failed commit keeps the rows, so
// consume never asks the pipeline to resend what is already buffered.
func (e *deltaExporter) consume(ctx context.Context, md pmetric.Metrics) error {
	rows, err := Rows(md, time.Now())
	if err != nil {
		return consumererror.NewPermanent(err) // the data cannot be written, however often it is sent
	}
	if len(rows) == 0 {
		return nil
	}
	if err := e.batcher.Add(ctx, rows...); err != nil {
		e.failures.Add(ctx, 1)
		e.logger.Warn("delta commit failed; rows kept for the next flush", zap.Int("rows", e.batcher.Pending()), zap.Error(err))
	}
	return nil
}

func (e *deltaExporter) shutdown(ctx context.Context) error {
	if e.cancel == nil {
		return nil // never started
	}
	e.cancel()
	e.done.Wait()
	if err := e.batcher.Flush(ctx); err != nil {
		return fmt.Errorf("delta exporter: final commit of %d rows: %w", e.batcher.Pending(), err)
	}
	return nil
}
