package deltaexporter

import (
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sparkdx/sparkdx/internal/export/delta"
)

// Rows turns the collector's metrics into samples rows exactly as serve
// turns what agents push to it: the pdata is encoded as the OTLP request it
// came in as and read by delta.OTLPSampleRows, the one conversion (one row
// per gauge or sum point; histograms and summaries give "<name>.count" and
// "<name>.sum"; points without a timestamp are stamped now).
func Rows(md pmetric.Metrics, now time.Time) ([]delta.SampleRow, error) {
	b, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	if err != nil {
		return nil, fmt.Errorf("delta exporter: encode metrics: %w", err)
	}
	var req colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		return nil, fmt.Errorf("delta exporter: decode metrics: %w", err)
	}
	return delta.OTLPSampleRows(&metricpb.MetricsData{ResourceMetrics: req.GetResourceMetrics()}, now), nil
}
