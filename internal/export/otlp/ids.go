package otlp

import (
	"context"
	"crypto/sha256"
	"encoding/binary"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Span and trace ids are derived from the application attempt and the
// Spark ids, not drawn at random: serve exports a running application's
// finished jobs before the application span exists, and a re-export of the
// same log produces the same trace instead of a duplicate.

type idKey struct{}

// withSelf puts the context the next span started with ctx will have: its
// ids and its sampling decision.
func withSelf(ctx context.Context, self trace.SpanContext) context.Context {
	return context.WithValue(ctx, idKey{}, self)
}

func self(ctx context.Context) trace.SpanContext {
	sc, _ := ctx.Value(idKey{}).(trace.SpanContext)
	return sc
}

// idGenerator hands out the ids put in the context by withSelf.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	sc := self(ctx)
	return sc.TraceID(), sc.SpanID()
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	return self(ctx).SpanID()
}

// decided samples a span as decided when its context was made: by
// SamplingRatio over the trace id, or by the caller's traceparent flag.
type decided struct{}

func (decided) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	r := sdktrace.SamplingResult{Decision: sdktrace.Drop,
		Tracestate: trace.SpanContextFromContext(p.ParentContext).TraceState()}
	if self(p.ParentContext).IsSampled() {
		r.Decision = sdktrace.RecordAndSample
	}
	return r
}

func (decided) Description() string { return "sparkdx/decided" }

func digest(parts ...string) [32]byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// traceIDFor is the trace id of an application attempt without a parent.
func traceIDFor(app, attempt string) trace.TraceID {
	d := digest("trace", app, attempt)
	var t trace.TraceID
	copy(t[:], d[:16])
	return t
}

// spanIDFor is the id of one span of an attempt (kind "app", "job", ...).
func spanIDFor(app, attempt string, kind string, id ...string) trace.SpanID {
	d := digest(append([]string{"span", app, attempt, kind}, id...)...)
	var s trace.SpanID
	copy(s[:], d[:8])
	if !s.IsValid() {
		s[7] = 1
	}
	return s
}

// sampled decides deterministically whether key is in a ratio-sized share.
func sampled(ratio float64, key ...string) bool {
	if ratio >= 1 {
		return true
	}
	if ratio <= 0 {
		return false
	}
	d := digest(key...)
	return float64(binary.BigEndian.Uint64(d[:8])>>11)/(1<<53) < ratio
}
