package tickworktest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store/mem"
	"github.com/tickwork/tickwork/worker"
)

// defaultStart is where a kit's clock starts unless Options.Start says
// otherwise: a fixed time, so that what a test prints does not change
// from run to run.
var defaultStart = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultMaxDrainAttempts bounds Drain unless Options.MaxDrainAttempts says
// otherwise.
const DefaultMaxDrainAttempts = 1000

// Options configure a Kit. Zero fields take the defaults noted.
type Options struct {
	// Worker configures the kit's worker as in production: Config
	// (MaxRetries and Backoff decide retries, unless a handler sets its
	// own; MaxSnoozes bounds snoozes; each zero field takes its default,
	// as worker.New does), Middleware, Logger (default: discard),
	// MeterProvider and TracerProvider. Its Clock and Rand are the kit's
	// own. Config.Schedules are not run: enqueue a schedule's payload to
	// test its handler.
	Worker worker.Options
	// Start is the clock's first reading (default 2030-01-01 00:00 UTC,
	// the same on every run).
	Start time.Time
	// Seed seeds job and worker ids and backoff jitter (default 1).
	Seed uint64
	// MaxDrainAttempts bounds the handler runs of one Drain (default
	// DefaultMaxDrainAttempts), so that handlers that keep enqueuing
	// cannot make it run forever.
	MaxDrainAttempts int
}

// Kit is an in-memory tickwork for one test: a store, a client writing to
// it, a worker to register handlers on, and the virtual clock they share.
// Its methods fail the test they were made for, with a message saying
// why, instead of returning errors. It is not for concurrent use.
type Kit struct {
	tb     testing.TB
	clock  *virtualClock
	st     *mem.Store
	client *worker.Client
	w      *worker.Worker
	rand   *clockrng.Rand
	max    int
	cores  int // cores made so far, each with a source of its own
}

// New returns a kit for tb. A configuration worker.New refuses fails tb.
func New(tb testing.TB, opts Options) *Kit {
	tb.Helper()
	if opts.Start.IsZero() {
		opts.Start = defaultStart
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.MaxDrainAttempts <= 0 {
		opts.MaxDrainAttempts = DefaultMaxDrainAttempts
	}
	k := &Kit{tb: tb, clock: newVirtualClock(opts.Start.UTC()), rand: clockrng.NewRand(opts.Seed), max: opts.MaxDrainAttempts}
	k.st = mem.New(k.clock.Now)
	k.client = worker.NewClient(k.st, k.rand.Child("client"))

	wopts := opts.Worker
	wopts.Clock, wopts.Rand = k.clock, k.rand.Child("worker")
	if wopts.Logger == nil {
		wopts.Logger = slog.New(slog.DiscardHandler)
	}
	var err error
	if k.w, err = worker.New(k.st, wopts); err != nil {
		tb.Fatalf("tickworktest: New: %v", err)
	}
	return k
}

// Store is the kit's in-memory store, for the Require functions and for
// reading rows.
func (k *Kit) Store() *mem.Store { return k.st }

// Client enqueues into the kit's store: hand it to the code under test.
func (k *Kit) Client() *worker.Client { return k.client }

// Worker is the kit's worker: register the application's handlers on it
// with worker.Handle. WorkOne and Drain run them; do not call its Run.
func (k *Kit) Worker() *worker.Worker { return k.w }

// Now is the kit's virtual time: the store's time and the worker's.
func (k *Kit) Now() time.Time { return k.clock.Now() }

// Advance moves the clock forward by d. Called from a handler (through a
// fake of a slow dependency, say), it makes the handler overrun: once d
// passes its timeout, its context is done with DeadlineExceeded when
// Advance returns, and the attempt is recorded as timed out.
func (k *Kit) Advance(d time.Duration) {
	k.tb.Helper()
	if d < 0 {
		k.tb.Fatalf("tickworktest: Advance(%v): the clock does not go back", d)
	}
	k.clock.set(k.clock.Now().Add(d))
}

// context is the context handlers run with: the test's.
func (k *Kit) context() context.Context { return k.tb.Context() }
