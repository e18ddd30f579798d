package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// The OpenTelemetry instruments are recorded with their attributes, and each job's
// span links to the span that enqueued it.
func TestRunnerMetricsAndSpans(t *testing.T) {
	st := mem.New(time.Now)
	var logs bytes.Buffer // written under the handler's lock, read after Run
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	r := startWorkerWith(t, st, Options{Config: runnerConfig(), Rand: clockrng.NewRand(1),
		Logger:        slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		MeterProvider: mp, TracerProvider: tp}, handleEmail(t))

	enqueuer, span := tp.Tracer("test").Start(context.Background(), "enqueue")
	_, err := Enqueue(enqueuer, NewClient(st, clockrng.NewRand(2)), email{To: "x"})
	must(t, err)
	span.End()
	waitFor(t, "the job to complete", func() bool {
		return len(listJobs(t, st, store.JobFilter{Status: store.Completed})) == 1
	})
	must(t, r.stop())

	var line map[string]any
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, "job attempt succeeded") {
			must(t, json.Unmarshal([]byte(l), &line))
		}
	}
	for _, k := range []string{"worker_id", "job_id", "queue", "attempt"} {
		if line[k] == nil {
			t.Errorf("job log line %v lacks %s", line, k)
		}
	}

	got := collectMetrics(t, reader)
	for _, name := range []string{"job.worker.wakeups", "job.worker.tick_duration", "job.process.duration", "job.active_tasks"} {
		if got[name] == nil {
			t.Errorf("instrument %s recorded nothing", name)
		}
	}
	if h, ok := got["job.process.duration"].(metricdata.Histogram[float64]); !ok || len(h.DataPoints) != 1 {
		t.Errorf("job.process.duration = %+v, want one histogram data point", got["job.process.duration"])
	} else {
		attrs := h.DataPoints[0].Attributes
		for k, want := range map[string]string{"queue": "email", "result": "success", "decision": "succeed"} {
			if v, ok := attrs.Value(attribute.Key(k)); !ok || v.AsString() != want {
				t.Errorf("job.process.duration attribute %s = %v, want %q", k, v.AsString(), want)
			}
		}
	}
	if s, ok := got["job.active_tasks"].(metricdata.Sum[int64]); ok && s.DataPoints[0].Value != 0 {
		t.Errorf("job.active_tasks = %d after every job ended, want 0", s.DataPoints[0].Value)
	}

	var jobSpan sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		if s.Name() == "job email" {
			jobSpan = s
		}
	}
	if jobSpan == nil {
		t.Fatal("no span for the job")
	}
	links := jobSpan.Links()
	if len(links) != 1 || links[0].SpanContext.SpanID() != trace.SpanContextFromContext(enqueuer).SpanID() {
		t.Fatalf("job span links %v, want one to the enqueuing span", links)
	}
	if jobSpan.Parent().IsValid() {
		t.Errorf("job span has parent %v; it should start a trace and link to the enqueuer", jobSpan.Parent())
	}
}

// handleEmail registers a handler of "email" jobs that succeeds.
func handleEmail(t *testing.T) func(*Worker) {
	return func(w *Worker) { must(t, Handle(w, "email", func(context.Context, Job[email]) error { return nil })) }
}

// collectMetrics reads every instrument reader holds, by name.
func collectMetrics(t *testing.T, reader sdkmetric.Reader) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	must(t, reader.Collect(context.Background(), &rm))
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m.Data
		}
	}
	return got
}
