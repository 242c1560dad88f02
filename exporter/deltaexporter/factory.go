// Package deltaexporter is an OpenTelemetry Collector exporter that appends
// OTLP metrics to the sparkdx "samples" Delta Lake table (one row per data
// point, partitioned by date), so that a collector pipeline
// (otlp receiver → processors → delta exporter) lands sparkdx agent metrics,
// or any others, next to the apps, jobs and stages tables sparkdx writes.
package deltaexporter

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configretry"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
)

// TypeStr is the exporter's name in collector configurations.
const TypeStr = "delta"

// NewFactory returns the delta exporter factory.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(component.MustNewType(TypeStr), createDefaultConfig,
		exporter.WithMetrics(createMetrics, component.StabilityLevelAlpha))
}

func createDefaultConfig() component.Config {
	return &Config{
		FlushInterval:      time.Minute,
		MaxRows:            100000,
		CheckpointInterval: 10,
		MaintainInterval:   24 * time.Hour,
		BackOff:            configretry.NewDefaultBackOffConfig(),
	}
}

func createMetrics(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
	c := cfg.(*Config)
	e, err := newExporter(c, set)
	if err != nil {
		return nil, err
	}
	return exporterhelper.NewMetrics(ctx, set, cfg, e.consume,
		exporterhelper.WithStart(e.start),
		exporterhelper.WithShutdown(e.shutdown),
		exporterhelper.WithRetry(c.BackOff),
		exporterhelper.WithCapabilities(consumer.Capabilities{MutatesData: false}))
}
