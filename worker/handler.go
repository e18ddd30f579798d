package worker

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel/metric"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// Job is one attempt of a job as its handler sees it, with the payload
// decoded into T.
type Job[T any] struct {
	ID           ulid.ULID
	Queue        string
	Attempt      int // 0 for the first run
	Payload      T
	Metadata     json.RawMessage // as stored: the trace context and the caller's entries
	CreatedAt    time.Time       // store time this attempt's row was written
	ScheduledAt  time.Time
	ScheduleName string // the schedule that enqueued it, or ""
	// Batch is, for a batch's callback (EnqueueBatch), the outcome of its
	// members, read as the attempt starts; nil for any other job.
	Batch *store.Batch
}

// HandlerOption configures one queue's handler.
type HandlerOption func(*handler)

// WithTimeout cancels the handler's context d after it starts (on the
// worker's clock); d is at most clockrng.MaxDuration. A handler that
// returns an error after its timeout is retried; one that returns nil
// succeeded.
func WithTimeout(d time.Duration) HandlerOption {
	return func(h *handler) { h.timeout = min(d, clockrng.MaxDuration) }
}

// handler runs one queue's jobs: it decodes the payload and calls the
// user's function. run reports an undecodable payload as errUndecodable.
type handler struct {
	queue      string
	timeout    time.Duration
	deprecated bool
	deadLetter string                                         // set by DeadLetter: written on the queue's row at registration
	policy     RetryPolicy                                    // set by WithQueueMaxAttempts, WithRetryDelay and WithRetryBackoff
	optErr     error                                          // an option's refusal, reported at registration
	run        func(ctx context.Context, job store.Job) error // with its middleware, once registered
	middleware []Middleware                                   // its own, inside the worker's
	span       string                                         // the name of its jobs' spans, built once; see spanName

	// byQueue and succeeded are the options, with the metric attributes,
	// of its jobs' counts and of its successful attempts' durations, built
	// once: looking the attributes up per job cost more than the rest of a
	// no-op job's telemetry, and a variadic option passed inline is a new
	// slice at every call. nil until registered.
	byQueue   []metric.AddOption
	succeeded []metric.RecordOption
}

// queueAttrs returns the options of h's jobs' counts by queue.
func (h *handler) queueAttrs(in *instruments) []metric.AddOption {
	if h.byQueue == nil {
		return []metric.AddOption{in.attrs("queue", h.queue)}
	}
	return h.byQueue
}

// resultAttrs returns the options of an attempt's duration.
func (h *handler) resultAttrs(in *instruments, outcome string, d Decision) []metric.RecordOption {
	if h.succeeded != nil && outcome == outcomeSuccess && d == Succeed {
		return h.succeeded
	}
	return []metric.RecordOption{in.attrs("queue", h.queue, "result", outcome, "decision", d.String())}
}

// outcomeSuccess is the result attribute of an attempt that succeeded.
const outcomeSuccess = "success"

// spanName names the span of one of h's jobs: "job " and the queue.
func (h *handler) spanName() string {
	if h.span == "" {
		return "job " + h.queue
	}
	return h.span
}

// errUndecodable wraps a payload decoding failure, which fails at once:
// the payload will never decode on a later attempt either.
type errUndecodable struct{ err error }

func (e *errUndecodable) Error() string { return e.err.Error() }
func (e *errUndecodable) Unwrap() error { return e.err }

// Handle registers fn as the handler of queue. Each job's payload is
// decoded from JSON into T first; a payload that does not decode fails the
// job at once, without retries. fn returns nil for success, FailJob(err)
// to fail for good, or any other error (or RetryJob(err)) to retry with backoff; a
// panic is recovered and retried. Handle must be called before Run; a queue
// has one handler. If T has a Queue() string method, queue must match it.
func Handle[T any](w *Worker, queue string, fn func(ctx context.Context, job Job[T]) error, opts ...HandlerOption) error {
	if fn == nil {
		return fmt.Errorf("worker: handler for queue %q is nil", queue)
	}
	if q, ok := queueOfType[T](); ok && q != queue {
		return fmt.Errorf("worker: handler for queue %q takes %v, whose Queue() is %q", queue, reflect.TypeFor[T](), q)
	}
	skipEmpty := emptyObjectIsZero[T]()
	h := &handler{queue: queue, run: func(ctx context.Context, j store.Job) error {
		job := jobView[T](j)
		if j.CallbackOf != (ulid.ULID{}) {
			b, err := w.batchOf(ctx, j.CallbackOf)
			if err != nil {
				return err
			}
			job.Batch = &b
		}
		if skipEmpty && string(j.Payload) == "{}" {
			return fn(ctx, job)
		}
		if err := json.Unmarshal(j.Payload, &job.Payload); err != nil {
			return &errUndecodable{fmt.Errorf("payload did not decode as %v: %w", reflect.TypeFor[T](), err)}
		}
		return fn(ctx, job)
	}}
	for _, o := range opts {
		o(h)
	}
	return w.addHandler(h)
}

// HandleDeprecated registers queue as deprecated: its jobs are taken and
// completed at once, doing nothing (no middleware runs), with a warning in
// the log. Use it for a queue whose producers are gone but whose jobs may
// still be stored.
func (w *Worker) HandleDeprecated(queue string) error {
	return w.addHandler(&handler{queue: queue, deprecated: true, run: func(context.Context, store.Job) error { return nil }})
}

// HandledQueues returns the queues that have a handler, sorted.
func (w *Worker) HandledQueues() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Sorted(maps.Keys(w.handlers))
}

func (w *Worker) addHandler(h *handler) error {
	if err := names.Check("queue", h.queue); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	if h.timeout < 0 {
		return fmt.Errorf("worker: handler for queue %q: timeout %v must not be negative", h.queue, h.timeout)
	}
	if h.optErr != nil {
		return fmt.Errorf("worker: handler for queue %q: %w", h.queue, h.optErr)
	}
	if err := checkDeadLetter(h.queue, h.deadLetter); err != nil {
		return fmt.Errorf("worker: handler for queue %q: %w", h.queue, err)
	}
	h.span = h.spanName()
	if !h.deprecated {
		mws := slices.Concat(w.middleware, h.middleware)
		if i := slices.IndexFunc(mws, func(m Middleware) bool { return m == nil }); i >= 0 {
			return fmt.Errorf("worker: handler for queue %q: middleware %d of %d (the worker's first, then the handler's) is nil", h.queue, i, len(mws))
		}
		h.run = wrap(mws, h.run)
	}
	h.byQueue = []metric.AddOption{w.inst.attrs("queue", h.queue)}
	h.succeeded = []metric.RecordOption{w.inst.attrs("queue", h.queue, "result", outcomeSuccess, "decision", Succeed.String())}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return fmt.Errorf("worker: handler for queue %q registered after Run started", h.queue)
	}
	if _, dup := w.handlers[h.queue]; dup {
		return fmt.Errorf("worker: queue %q already has a handler", h.queue)
	}
	w.handlers[h.queue] = h
	return nil
}

// decisionError carries a handler's explicit decision.
type decisionError struct {
	decision Decision
	err      error
}

func (e *decisionError) Error() string { return e.err.Error() }
func (e *decisionError) Unwrap() error { return e.err }

// RetryJob marks err as worth another attempt (after the backoff delay,
// while attempts remain). A plain error already means retry; RetryJob says
// so explicitly. RetryJob(nil) is nil.
func RetryJob(err error) error {
	if err == nil {
		return nil
	}
	return &decisionError{decision: Retry, err: err}
}

// FailJob marks err as final: the job fails and is not retried.
// FailJob(nil) is nil.
func FailJob(err error) error {
	if err == nil {
		return nil
	}
	return &decisionError{decision: Fail, err: err}
}

// DecisionOf returns what err means for the job: Succeed for nil, the
// decision of the outermost RetryJob or FailJob wrapper, Snoozed for a
// Snooze, Fail for an undecodable payload, and Retry for any other error.
func DecisionOf(err error) Decision {
	if err == nil {
		return Succeed
	}
	var d *decisionError
	if errors.As(err, &d) {
		return d.decision
	}
	if _, ok := SnoozeOf(err); ok {
		return Snoozed
	}
	var u *errUndecodable
	if errors.As(err, &u) {
		return Fail
	}
	return Retry
}

// queueOfType returns the queue a non-pointer payload type names through
// its Queue method. Pointer types are not asked: their zero value is nil.
func queueOfType[T any]() (string, bool) {
	var zero T
	if k := reflect.TypeFor[T]().Kind(); k == reflect.Pointer || k == reflect.Interface {
		return "", false
	}
	q, ok := any(zero).(Queuer)
	if !ok {
		return "", false
	}
	return q.Queue(), true
}

// emptyObjectIsZero reports whether decoding the JSON object {} into a zero
// T always succeeds and leaves it zero, so the decoder need not run: T is a
// struct that decodes no JSON or text of its own. No-op payloads are {},
// and decoding costs a busy worker more than the rest of a job's path.
func emptyObjectIsZero[T any]() bool {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return false
	}
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(reflect.TypeFor[json.Unmarshaler]()) || u.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
			return false
		}
	}
	return true
}
