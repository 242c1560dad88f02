// Package sparksinksreceiver is an OpenTelemetry Collector receiver for
// Apache Spark's own metric sinks: GraphiteSink (TCP) and StatsdSink (UDP),
// fed by Spark's JvmSource and ExecutorMetrics source. It maps Spark's
// metric names (`<app>.<executor>.jvm.*`, `…ExecutorMetrics.*`,
// `…executor.*`) to the series, attributes and resource a sparkdx agent
// pushes (jvm.memory.used by pool, spark.executor.memory.usage by kind,
// spark.app.id, spark.executor.id…), with the code sparkdx serve's
// --graphite-listen and --statsd-listen use, so that a collector pipeline
// (sparksinks → delta exporter) lands managed Spark's memory and GC in the
// same samples rows an agent's push does, with no agent on the node.
package sparksinksreceiver

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"
)

// TypeStr is the receiver's name in collector configurations.
const TypeStr = "sparksinks"

// NewFactory returns the receiver's factory.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(component.MustNewType(TypeStr), createDefaultConfig,
		receiver.WithMetrics(createMetrics, component.StabilityLevelAlpha))
}

func createDefaultConfig() component.Config {
	return &Config{}
}

func createMetrics(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
	return newReceiver(cfg.(*Config), set, next), nil
}
