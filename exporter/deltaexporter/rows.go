package deltaexporter

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/sparkdx/sparkdx/internal/export/delta"
)

// Attributes with their own samples column; the sparkdx agent sets them.
const (
	attrHost       = "host.name"
	attrService    = "service.name"
	attrAppID      = "spark.app.id"
	attrExecutorID = "spark.executor.id"
	attrRole       = "spark.role"
)

// Rows turns OTLP metrics into samples rows: one per gauge or sum data
// point; histograms and summaries give a "<name>.count" and a "<name>.sum"
// row. Data points without a timestamp are stamped now.
func Rows(md pmetric.Metrics, now time.Time) []delta.SampleRow {
	var rows []delta.SampleRow
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		rm := rms.At(i)
		res := rm.Resource().Attributes()
		sms := rm.ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				rows = appendMetric(rows, res, ms.At(k), now)
			}
		}
	}
	return rows
}

func appendMetric(rows []delta.SampleRow, res pcommon.Map, m pmetric.Metric, now time.Time) []delta.SampleRow {
	name, unit := m.Name(), m.Unit()
	number := func(dps pmetric.NumberDataPointSlice) {
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			v := dp.DoubleValue()
			if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
				v = float64(dp.IntValue())
			}
			rows = append(rows, row(res, dp.Attributes(), dp.Timestamp(), now, name, unit, v))
		}
	}
	countSum := func(attrs pcommon.Map, ts pcommon.Timestamp, count uint64, sum float64, hasSum bool) {
		rows = append(rows, row(res, attrs, ts, now, name+".count", "1", float64(count)))
		if hasSum {
			rows = append(rows, row(res, attrs, ts, now, name+".sum", unit, sum))
		}
	}
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		number(m.Gauge().DataPoints())
	case pmetric.MetricTypeSum:
		number(m.Sum().DataPoints())
	case pmetric.MetricTypeHistogram:
		dps := m.Histogram().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			countSum(dp.Attributes(), dp.Timestamp(), dp.Count(), dp.Sum(), dp.HasSum())
		}
	case pmetric.MetricTypeExponentialHistogram:
		dps := m.ExponentialHistogram().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			countSum(dp.Attributes(), dp.Timestamp(), dp.Count(), dp.Sum(), dp.HasSum())
		}
	case pmetric.MetricTypeSummary:
		dps := m.Summary().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			countSum(dp.Attributes(), dp.Timestamp(), dp.Count(), dp.Sum(), true)
		}
	}
	return rows
}

func row(res, attrs pcommon.Map, ts pcommon.Timestamp, now time.Time, name, unit string, v float64) delta.SampleRow {
	t := now
	if ts != 0 {
		t = ts.AsTime()
	}
	t = t.UTC().Truncate(time.Microsecond)
	r := delta.SampleRow{Date: delta.SampleDate(t), Time: t, Metric: name, Value: v, Unit: unit, Attributes: map[string]string{}}
	for _, m := range []pcommon.Map{res, attrs} { // data point attributes win
		for k, val := range m.All() {
			s := val.AsString()
			switch k {
			case attrHost:
				r.Host = s
			case attrService:
				r.Service = s
			case attrAppID:
				r.AppID = s
			case attrExecutorID:
				r.ExecutorID = s
			case attrRole:
				r.Role = s
			default:
				r.Attributes[k] = s
			}
		}
	}
	return r
}
