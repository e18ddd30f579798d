package worker

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/worker/engine"
)

// Options configure a Worker. Zero fields take the defaults noted.
type Options struct {
	// Config is the queue behaviour: each zero field takes its default
	// (Config.WithDefaults; NoRetries, NoJitter, NoDrain and NoSnoozes say
	// "none" where zero would mean the default). When Config.Queues is
	// empty the worker takes the queues it has handlers for.
	Config Config
	// Clock drives the poll timer, handler timeouts and the drain deadline
	// (default clockrng.Real()).
	Clock clockrng.Clock
	// Rand supplies ids, jitter and backoff jitter (default: seeded from
	// crypto/rand). Pass a seeded source to make a run reproducible.
	Rand *clockrng.Rand
	// Logger receives the worker's logs (default slog.Default()).
	Logger *slog.Logger
	// MeterProvider and TracerProvider default to the global OpenTelemetry
	// providers. With the global tracer provider, jobs get spans once a
	// provider is registered there, even one registered after New.
	MeterProvider  metric.MeterProvider
	TracerProvider trace.TracerProvider
	// Observer, if set, also receives every core event, on the loop's
	// goroutine (it must not block for long); with several lanes, on
	// theirs, one event at a time.
	Observer engine.Observer
	// Middleware wraps every handler's calls, the first listed outermost,
	// around the handler's own (WithMiddleware).
	Middleware []Middleware
	// Lanes is how many job paths Run drives at once (default 1, at most
	// MaxLanes and MaxConcurrent): each lane is a worker of its own in the
	// store with its share of MaxConcurrent and MaxFetch (see lanes.go).
	// Two lanes from about 100 jobs in flight, and one more per 500 beyond
	// 1,000, let the store's work for one lane run while another's jobs
	// run; each lane's passes carry fewer jobs, so the database spends more
	// a job (half again at 100 in flight; see lanes.go).
	Lanes int
	// Encryption opens the payloads and metadata values enqueued
	// Encrypted, sealed with any of its keys, and seals their jobs'
	// outputs with its newest key. A job sealed with a key it lacks (or
	// with none) fails its attempt, retried as a handler's error is.
	Encryption *encryption.Ring
	// Abandon, if set, gives the drain up once it is done: Run's handlers
	// are cut short at once (cause ErrShutdownCancel) and their jobs
	// released after the grace, as at the drain deadline. A process that
	// stops on signals judges them with engine.StopRequests: Run's ctx
	// ends at StopBegin, Abandon at StopAbandon.
	Abandon context.Context
}

// Worker is the production runner: it drives a Core with real waiting and
// runs handlers in goroutines. Register handlers with Handle, then call Run
// once.
type Worker struct {
	st           store.Store
	cfg          Config
	clock        clockrng.Clock
	rand         *clockrng.Rand
	ring         *encryption.Ring // Options.Encryption
	log          *slog.Logger
	tracer       trace.Tracer
	inst         *instruments
	obs          engine.Observer
	lanes        int             // Options.Lanes, at least 1
	abandon      <-chan struct{} // Options.Abandon's Done, nil without one
	globalTracer bool            // tracer is the global provider's, whose stand-in startSpan recognizes

	middleware []Middleware // Options.Middleware, wrapped around each handler at Handle

	mu       sync.Mutex
	handlers map[string]*handler
	started  bool
	// queues, lanesCtl and runEnded are Run's, for AddQueue and
	// RemoveQueue: the queues its lanes reserve from, in name order, how
	// to reach each lane's loop (nil before Run), and whether Run returned.
	queues   []string
	lanesCtl []*laneCtl
	runEnded bool
}

// New returns a worker on st. It fills opts.Config in with the defaults
// and checks it now (Validate), so a bad configuration fails here with
// every problem listed.
func New(st store.Store, opts Options) (*Worker, error) {
	if st == nil {
		return nil, errors.New("worker: New needs a store")
	}
	cfg := opts.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lanes, err := validateLanes(opts.Lanes, cfg)
	if err != nil {
		return nil, err
	}
	w := &Worker{st: st, cfg: cfg, clock: opts.Clock, rand: opts.Rand, ring: opts.Encryption, log: opts.Logger, obs: opts.Observer, lanes: lanes, handlers: map[string]*handler{}}
	if opts.Abandon != nil {
		w.abandon = opts.Abandon.Done()
	}
	w.middleware = slices.Clone(opts.Middleware)
	if w.clock == nil {
		w.clock = clockrng.Real()
	}
	if w.rand == nil {
		w.rand = clockrng.NewRandFromOS()
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	mp, tp := opts.MeterProvider, opts.TracerProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if tp == nil {
		tp, w.globalTracer = otel.GetTracerProvider(), unregisteredGlobal != nil
	}
	w.tracer = tp.Tracer(instrumentationName)
	if w.inst, err = newInstruments(mp.Meter(instrumentationName)); err != nil {
		return nil, err
	}
	return w, nil
}

// lockedCoreConfig returns the configuration Run gives its core (see
// workerengine.Engine.CoreConfig).
func (w *Worker) lockedCoreConfig() Config {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.coreConfig()
}

// coreConfig is lockedCoreConfig with w.mu held.
func (w *Worker) coreConfig() Config {
	cfg := w.cfg
	if len(cfg.Queues) == 0 {
		cfg.Queues = slices.Sorted(maps.Keys(w.handlers))
	}
	cfg.Policies = policies(cfg.Policies, w.handlers)
	cfg.DeadLetters = deadLetters(cfg.DeadLetters, w.handlers)
	return cfg
}
