package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// execute runs one attempt of job with h and returns its result. It never
// panics: a handler's panic becomes a retry carrying the panic's message.
func (w *Worker) execute(ctx context.Context, h *handler, job store.Job) engine.Result {
	byQueue := h.queueAttrs(w.inst)
	w.inst.active.Add(ctx, 1, byQueue...)
	defer w.inst.active.Add(ctx, -1, byQueue...)
	log := func(level slog.Level, msg string, attrs ...slog.Attr) {
		if w.log.Enabled(ctx, level) { // skip building attributes nobody reads
			attrs = append(attrs, slog.String("worker_id", job.StartedBy.String()), slog.String("job_id", job.ID.String()),
				slog.String("queue", job.Queue), slog.Int("attempt", job.Attempt))
			w.log.LogAttrs(ctx, level, msg, attrs...)
		}
	}

	ctx, span := w.startSpan(ctx, h)
	defer span.End()
	if span.IsRecording() { // decoding the metadata is wasted on a span nobody keeps
		span.SetAttributes(attribute.String("job.id", job.ID.String()), attribute.String("queue", job.Queue), attribute.Int("job.attempt", job.Attempt))
		for _, l := range linkFromMetadata(job.Metadata) {
			span.AddLink(l)
		}
	}
	if h.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = w.clock.WithTimeout(ctx, h.timeout)
		defer cancel()
	}

	start := w.clock.Now()
	attempt := &attemptContext{Context: ctx}
	panicked, err := w.callOpened(attempt, h, job)
	elapsed := w.clock.Since(start)
	output, err := w.sealOutput(job, attempt.out.recorded(err == nil && !panicked), err)

	r := engine.Result{JobID: job.ID, Decision: DecisionOf(err), Output: output}
	outcome := outcomeSuccess
	switch {
	case panicked:
		outcome, r.Decision = "panic", Retry
		if mutant.On(mutant.PanicFailsJob) {
			r.Decision = Fail
		}
	case isUndecodable(err):
		outcome = "undecodable"
	case r.Decision == Snoozed:
		outcome, r.Snooze, r.Reason = "snooze", snoozeOf(err), err.Error()
		log(slog.LevelDebug, "job attempt snoozed", slog.Duration("snooze", r.Snooze), slog.Duration("duration", elapsed))
		err = nil // not a failure
	case err != nil && errors.Is(context.Cause(ctx), ErrShutdownCancel):
		// Cut short by the shutdown, as the simulator's handlers are: the
		// job is released and retried, whatever the handler decided.
		outcome, r.Decision, err = "shutdown", Retry, fmt.Errorf("%w: %w", ErrShutdownCancel, err)
	case err != nil && errors.Is(context.Cause(ctx), ErrJobCancelled):
		outcome = "cancelled"
	case err != nil && h.timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		outcome, err = "timeout", fmt.Errorf("timed out after %v: %w", h.timeout, err)
	case err != nil:
		outcome = "error"
	case h.deprecated:
		outcome = "deprecated"
		log(slog.LevelWarn, "completed a job of a deprecated queue without running anything")
	}
	if err != nil {
		r.Reason, r.Err = err.Error(), err
		span.SetStatus(codes.Error, r.Reason)
		// No decision here: whether the job is retried, fails for good or
		// stays cancelled is the core's to decide (its attempts, its
		// cancellation); the retry-scheduled or retry-abandoned event logs
		// what it decided.
		log(slog.LevelWarn, "job attempt failed", slog.String("outcome", outcome),
			slog.String("error", r.Reason), slog.Duration("duration", elapsed))
	} else if r.Decision == Succeed {
		log(slog.LevelDebug, "job attempt succeeded", slog.Duration("duration", elapsed))
	}
	w.inst.process.Record(ctx, float64(elapsed.Microseconds())/1000,
		h.resultAttrs(w.inst, outcome, r.Decision)...)
	return r
}

// jobSpanOptions start every job's span: a consumer span in a trace of its
// own, linked to the enqueuer's. Built once: options passed inline are
// allocated again for every job.
var jobSpanOptions = []trace.SpanStartOption{trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindConsumer)}

// isUndecodable reports whether err says the payload did not decode.
func isUndecodable(err error) bool {
	if err == nil {
		return false // before the declaration, which allocates
	}
	var u *errUndecodable
	return errors.As(err, &u)
}

// callHandler runs the handler, turning a panic into an error.
func callHandler(ctx context.Context, h *handler, job store.Job) (panicked bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err, panicked = fmt.Errorf("handler panicked: %v", p), true
		}
	}()
	return false, h.run(ctx, job)
}

// executeInline runs one attempt of job inline with the handler registered
// for its queue, as Run does (see workerengine.Engine.Execute). A queue
// without a handler fails the job, as Run would.
func (w *Worker) executeInline(ctx context.Context, job store.Job) engine.Result {
	w.mu.Lock()
	h, ok := w.handlers[job.Queue]
	w.mu.Unlock()
	if !ok {
		h = &handler{queue: job.Queue, run: func(context.Context, store.Job) error {
			return FailJob(fmt.Errorf("no handler for queue %q on this worker", job.Queue))
		}}
	}
	return w.execute(ctx, h, job)
}
