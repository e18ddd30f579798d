package worker

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// traceFormat is how a job's metadata carries the enqueuer's trace context:
// W3C traceparent and tracestate entries, whatever the global propagator.
var traceFormat propagation.TraceContext

// withTraceContext returns meta (a JSON object's entries) plus the trace
// context of ctx, if ctx carries a span.
func withTraceContext(ctx context.Context, meta map[string]string) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return meta
	}
	out := make(map[string]string, len(meta)+2)
	for k, v := range meta {
		out[k] = v
	}
	traceFormat.Inject(ctx, propagation.MapCarrier(out))
	return out
}

// linkFromMetadata returns a link to the span that enqueued the job, if its
// metadata carries one.
func linkFromMetadata(meta json.RawMessage) []trace.Link {
	var entries map[string]any
	if json.Unmarshal(meta, &entries) != nil {
		return nil
	}
	carrier := propagation.MapCarrier{}
	for k, v := range entries {
		if s, ok := v.(string); ok {
			carrier[k] = s
		}
	}
	sc := trace.SpanContextFromContext(traceFormat.Extract(context.Background(), carrier))
	if !sc.IsValid() {
		return nil
	}
	return []trace.Link{{SpanContext: sc}}
}
