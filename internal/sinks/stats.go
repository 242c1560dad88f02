package sinks

import (
	"errors"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a line, the label of sparkdx_serve_sink_lines_total.
const (
	outcomeMapped   = "mapped"   // read into a series
	outcomeUnmapped = "unmapped" // Spark's, of a metric sparkdx does not read (heap.used: its pools are read)
	outcomeOther    = "other"    // a well-formed line in no Spark layout, or of another source
	outcomeBad      = "bad"      // not a metric line, a bad value or timestamp, a name refused
	outcomeTooLong  = "too_long" // past MaxLineBytes, discarded unread
	outcomeRefused  = "refused"  // a new series past the bounds
)

var outcomes = []string{outcomeMapped, outcomeUnmapped, outcomeOther, outcomeBad, outcomeTooLong, outcomeRefused}

// stats counts what the receivers did: lines by sink and outcome,
// connections turned away, flushes serve refused. Counted, not logged: a
// misconfigured sink sends the same bad line every period.
type stats struct {
	lines         [2][6]atomic.Int64 // [graphite, statsd][outcome]
	connsRejected atomic.Int64
	sinkErrors    atomic.Int64

	linesDesc, connsDesc, errorsDesc *prometheus.Desc
}

func newStats() *stats {
	return &stats{
		linesDesc: prometheus.NewDesc("sparkdx_serve_sink_lines_total",
			"Lines Spark's metric sinks sent (--graphite-listen, --statsd-listen), by sink and outcome: mapped, unmapped (a Spark metric sparkdx does not read), other (no Spark layout), bad, too_long, refused (a new series past the bounds).",
			[]string{"sink", "outcome"}, nil),
		connsDesc: prometheus.NewDesc("sparkdx_serve_sink_connections_rejected_total",
			"GraphiteSink connections closed at once: too many open.", nil, nil),
		errorsDesc: prometheus.NewDesc("sparkdx_serve_sink_flush_errors_total",
			"Batches of sink points serve's store refused (a full disk).", nil, nil),
	}
}

func sinkIndex(sink string) int {
	if sink == sinkStatsd {
		return 1
	}
	return 0
}

func (s *stats) count(sink, outcome string) { s.add(sink, outcome, 1) }

func (s *stats) add(sink, outcome string, n int) {
	for i, o := range outcomes {
		if o == outcome {
			s.lines[sinkIndex(sink)][i].Add(int64(n))
			return
		}
	}
}

// outcomeOf is the outcome of a line that did not parse.
func outcomeOf(err error) string {
	if errors.Is(err, errSource) {
		return outcomeOther
	}
	return outcomeBad
}

func (s *stats) describe(ch chan<- *prometheus.Desc) {
	ch <- s.linesDesc
	ch <- s.connsDesc
	ch <- s.errorsDesc
}

func (s *stats) collect(ch chan<- prometheus.Metric) {
	for i, sink := range []string{sinkGraphite, sinkStatsd} {
		for j, o := range outcomes {
			ch <- prometheus.MustNewConstMetric(s.linesDesc, prometheus.CounterValue, float64(s.lines[i][j].Load()), sink, o)
		}
	}
	ch <- prometheus.MustNewConstMetric(s.connsDesc, prometheus.CounterValue, float64(s.connsRejected.Load()))
	ch <- prometheus.MustNewConstMetric(s.errorsDesc, prometheus.CounterValue, float64(s.sinkErrors.Load()))
}
