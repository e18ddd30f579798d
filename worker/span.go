package worker

import (
	"context"
	"reflect"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// A worker given no TracerProvider traces through OpenTelemetry's global
// one. Until a program registers a provider there, the global stand-in
// hands out spans that record nothing, and building one (a span value and
// a context, looked up through the job's chain of contexts) cost about a
// tenth of the runner's processor time per no-op job in the side-by-side
// benchmark beside River. startSpan therefore starts no span while nothing
// is registered, and looks again for every job, so that a provider
// registered after New, even while Run runs, traces the jobs started
// after it.

// unregisteredGlobal is the type of the global tracer provider before a
// program registers one, or nil if this package could not tell it (one
// was registered before it was initialized, or OpenTelemetry moved its
// stand-in): the worker then always starts spans.
var unregisteredGlobal = func() reflect.Type {
	t := reflect.TypeOf(otel.GetTracerProvider())
	if t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "go.opentelemetry.io/otel/internal/global" {
		return t
	}
	return nil
}()

// startSpan starts job's span in ctx: a consumer span in a trace of its
// own (jobSpanOptions). With the global provider and none registered it
// returns ctx as it is and a span that records nothing.
func (w *Worker) startSpan(ctx context.Context, h *handler) (context.Context, trace.Span) {
	if w.globalTracer && reflect.TypeOf(otel.GetTracerProvider()) == unregisteredGlobal {
		return ctx, noop.Span{}
	}
	return w.tracer.Start(ctx, h.spanName(), jobSpanOptions...)
}
