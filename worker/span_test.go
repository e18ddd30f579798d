package worker

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A worker without a TracerProvider traces through the global one: no span
// while none is registered there, and a span for each job once one is,
// though it was registered after New. The global provider cannot be
// unregistered, so the test runs in a process of its own.
func TestGlobalTracerProviderRegisteredAfterNew(t *testing.T) {
	if os.Getenv("TICKWORK_TEST_GLOBAL_TRACER") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGlobalTracerProviderRegisteredAfterNew$", "-test.v")
		cmd.Env = append(os.Environ(), "TICKWORK_TEST_GLOBAL_TRACER=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		return
	}
	if unregisteredGlobal == nil {
		t.Fatal("the global tracer provider's stand-in was not recognized: every job would build a span that records nothing")
	}
	w := newInlineWorker(t)
	var recording []bool
	must(t, Handle(w, "q", func(ctx context.Context, _ Job[struct{}]) error {
		recording = append(recording, trace.SpanFromContext(ctx).IsRecording())
		return nil
	}))
	row := rowFor("q", `{}`)
	w.executeInline(context.Background(), row)

	spans := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	w.executeInline(context.Background(), row)

	if len(recording) != 2 || recording[0] || !recording[1] {
		t.Errorf("handler's span recording before and after registering a provider: %v, want [false true]", recording)
	}
	if ended := spans.Ended(); len(ended) != 1 || ended[0].Name() != "job q" {
		t.Errorf("spans ended once a provider was registered: %d, want one named %q", len(ended), "job q")
	}
}
