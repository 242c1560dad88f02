package sparksinksreceiver

import (
	"context"
	"fmt"
	"net"
	"sync"

	"github.com/sparkdx/sparkdx/internal/sinks"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"
)

type sinksReceiver struct {
	cfg    *Config
	set    receiver.Settings
	next   consumer.Metrics
	rcv    *sinks.Receiver
	cancel context.CancelFunc
	done   sync.WaitGroup
}

func newReceiver(cfg *Config, set receiver.Settings, next consumer.Metrics) *sinksReceiver {
	return &sinksReceiver{cfg: cfg, set: set, next: next}
}

// Start binds the endpoints (a port in use fails the collector's start)
// and receives until Shutdown.
func (r *sinksReceiver) Start(_ context.Context, _ component.Host) error {
	sc := r.cfg.sinks()
	sc.Sink = r.consume
	rcv, err := sinks.New(sc)
	if err != nil {
		return fmt.Errorf("sparksinks: %w", err)
	}
	r.rcv = rcv
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.done.Go(func() { rcv.Run(ctx) })
	r.set.Logger.Info("receiving Spark's metric sinks",
		zap.String("graphite", addr(rcv.GraphiteAddr())), zap.String("statsd", addr(rcv.StatsdAddr())))
	return nil
}

// Shutdown closes the endpoints and waits for the batches read so far to
// go down the pipeline.
func (r *sinksReceiver) Shutdown(context.Context) error {
	if r.cancel == nil {
		return nil // never started
	}
	r.cancel()
	r.done.Wait()
	return nil
}

// consume hands one batch, built as an agent's OTLP push, to the next
// consumer. The batch is OTLP's wire form in memory; pdata reads that form
// directly, so it goes through its encoding once.
func (r *sinksReceiver) consume(ctx context.Context, md *metricpb.MetricsData) error {
	b, err := proto.Marshal(md)
	if err != nil {
		return fmt.Errorf("sparksinks: encode batch: %w", err)
	}
	m, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(b)
	if err != nil {
		return fmt.Errorf("sparksinks: decode batch: %w", err)
	}
	if err := r.next.ConsumeMetrics(ctx, m); err != nil {
		r.set.Logger.Warn("the pipeline refused a batch of Spark sink metrics", zap.Int("dataPoints", m.DataPointCount()), zap.Error(err))
		return err
	}
	return nil
}

func addr(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}
