package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/encryption"
	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/store"
)

// Queuer is implemented by payload types that name the queue their jobs go
// to, so that Enqueue needs no queue argument.
type Queuer interface {
	Queue() string
}

// Client enqueues jobs. It is safe for concurrent use.
type Client struct {
	st     store.Store
	mu     sync.Mutex // guards rnd, queues and hooks
	rnd    *clockrng.Rand
	queues map[reflect.Type]string
	hooks  []EnqueueHook
	ring   *encryption.Ring // SetEncryption's
}

// NewClient returns a client writing to st. Job ids draw their randomness
// from rnd; a nil rnd is seeded from crypto/rand.
func NewClient(st store.Store, rnd *clockrng.Rand) *Client {
	if rnd == nil {
		rnd = clockrng.NewRandFromOS()
	}
	return &Client{st: st, rnd: rnd, queues: map[reflect.Type]string{}}
}

// RegisterQueue makes queue the destination of payloads of type T, for
// types that have no Queue method (or to override it).
func RegisterQueue[T any](c *Client, queue string) error {
	if err := names.Check("queue", queue); err != nil {
		return fmt.Errorf("worker: queue of %v: %w", reflect.TypeFor[T](), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queues[reflect.TypeFor[T]()] = queue
	return nil
}

// EnqueueOption adjusts one enqueue call.
type EnqueueOption func(*enqueueOptions)

type enqueueOptions struct {
	at             time.Time
	meta           map[string]string
	queue          string
	unique         uniqueOptions
	priority       int
	maxAttempts    int
	maxAttemptsSet bool
	partition      partitionOptions
	sequence       sequenceOptions
	after          afterOptions
	// encrypted: seal the payloads and the metadata values named by
	// encryptMeta (Encrypted).
	encrypted   bool
	encryptMeta []string
	// callback: the last job of the insert is the callback of the others
	// (EnqueueBatch), enqueued with callbackOpts.
	callback     bool
	callbackOpts []EnqueueOption
}

// WithScheduledAt makes the jobs wait until t (compared with the store's time); a time
// not after the store's now makes them available at once.
func WithScheduledAt(t time.Time) EnqueueOption { return func(o *enqueueOptions) { o.at = t } }

// WithMetadata stores entries in the jobs' metadata, next to the trace
// context. Handlers see them in Job.Metadata.
func WithMetadata(entries map[string]string) EnqueueOption {
	return func(o *enqueueOptions) { o.meta = entries }
}

// WithPriority gives the jobs priority p, from store.MinPriority (0, the
// default and the most urgent) to store.MaxPriority: a worker reserves the
// smallest number first, then the earliest due, then the oldest. Retries
// keep it. A priority out of range is an error and nothing is written.
func WithPriority(p int) EnqueueOption { return func(o *enqueueOptions) { o.priority = p } }

// WithQueue sends the jobs to queue whatever their payload type says.
func WithQueue(queue string) EnqueueOption { return func(o *enqueueOptions) { o.queue = queue } }

// Enqueue stores one job with payload encoded as JSON, in a transaction of
// its own, and returns its id. The queue comes from WithQueue, RegisterQueue
// or the payload's Queue method, in that order; none of them is an error.
// A payload that does not encode is an error and nothing is written. The
// trace context of ctx goes into the job's metadata.
func Enqueue[T any](ctx context.Context, c *Client, payload T, opts ...EnqueueOption) (ulid.ULID, error) {
	ids, err := EnqueueMany(ctx, c, []T{payload}, opts...)
	if err != nil {
		return ulid.ULID{}, err
	}
	return ids[0], nil
}

// EnqueueTx is Enqueue inside a transaction of the client's store: the job
// exists only if tx commits. Any store's transaction does, which is what
// tests and the in-memory store use; with PostgreSQL, an application
// enqueues in its own pgx transaction with EnqueuePgxTx.
func EnqueueTx[T any](ctx context.Context, c *Client, tx store.Tx, payload T, opts ...EnqueueOption) (ulid.ULID, error) {
	jobs, o, err := newJobs(ctx, c, []T{payload}, opts)
	if err != nil {
		return ulid.ULID{}, err
	}
	if err := c.insert(ctx, tx, jobs, o); err != nil {
		return ulid.ULID{}, err
	}
	return jobs[0].ID, nil
}

// EnqueuePgxTx is Enqueue inside the application's own PostgreSQL
// transaction: the job exists only if tx commits, with the rows the
// application writes in it. The client's store must be a store/pg store
// (tx may come from any connection to its database); a failed insert is
// undone under a savepoint and leaves tx usable. A job with a sequence key
// needs tx under READ COMMITTED: under a snapshot older than the key's
// lock it could take a place another job holds, so it is refused.
func EnqueuePgxTx[T any](ctx context.Context, c *Client, tx pgx.Tx, payload T, opts ...EnqueueOption) (ulid.ULID, error) {
	joiner, ok := c.st.(pgxJoiner)
	if !ok {
		return ulid.ULID{}, fmt.Errorf("enqueue in a pgx transaction: the client's store (%T) cannot join one; open it with store/pg, or use EnqueueTx", c.st)
	}
	var id ulid.ULID
	err := joiner.InPgxTx(ctx, tx, func(stx store.Tx) (err error) {
		id, err = EnqueueTx(ctx, c, stx, payload, opts...)
		return err
	})
	return id, err
}

// pgxJoiner is a store that runs a store transaction inside a caller's pgx
// transaction (store/pg's Store).
type pgxJoiner interface {
	InPgxTx(ctx context.Context, outer pgx.Tx, fn func(store.Tx) error) error
}

// EnqueueMany stores many jobs in one transaction and one insert (COPY
// with PostgreSQL for large batches). Their ids follow the order of
// payloads, so they are reserved in that order. Any payload that does not
// encode fails the whole call before anything is written.
func EnqueueMany[T any](ctx context.Context, c *Client, payloads []T, opts ...EnqueueOption) ([]ulid.ULID, error) {
	if len(payloads) == 0 {
		return nil, nil
	}
	jobs, o, err := newJobs(ctx, c, payloads, opts)
	if err != nil {
		return nil, err
	}
	if err := c.st.InTx(ctx, func(tx store.Tx) error { return c.insert(ctx, tx, jobs, o) }); err != nil {
		return nil, err
	}
	ids := make([]ulid.ULID, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids, nil
}

// newJobs encodes payloads into rows without ids, and returns the options
// that apply after the insert.
func newJobs[T any](ctx context.Context, c *Client, payloads []T, opts []EnqueueOption) ([]store.NewJob, enqueueOptions, error) {
	var o enqueueOptions
	for _, opt := range opts {
		opt(&o)
	}
	jobs, err := encodeJobs(ctx, c, payloads, o)
	return jobs, o, err
}

func encodeJobs[T any](ctx context.Context, c *Client, payloads []T, o enqueueOptions) ([]store.NewJob, error) {
	if err := o.checkMaxAttempts(); err != nil {
		return nil, err
	}
	entries := withTraceContext(ctx, o.meta)
	meta, err := encodeMetadata(entries)
	if err != nil {
		return nil, err
	}
	hooks := c.enqueueHooks()
	jobs := make([]store.NewJob, len(payloads))
	for i, p := range payloads {
		queue, err := c.queueOf(p, o.queue)
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("worker: encode payload %d (%T) for queue %q: %w", i, p, queue, err)
		}
		key, err := o.partition.keyOf(raw)
		if err != nil {
			return nil, fmt.Errorf("worker: payload %d (%T) for queue %q: %w", i, p, queue, err)
		}
		jobs[i] = store.NewJob{Queue: queue, Payload: raw, Metadata: meta, ScheduledAt: o.at, Priority: o.priority, MaxAttempts: o.maxAttempts,
			PartitionKey: key}
		o.sequence.apply(&jobs[i])
		o.unique.apply(&jobs[i])
		if err := o.after.apply(i, &jobs[i]); err != nil {
			return nil, err
		}
		if len(hooks) > 0 {
			pending := PendingJob{Queue: queue, Payload: raw, ScheduledAt: o.at}
			if jobs[i].Metadata, err = runHooks(ctx, hooks, i, pending, entries); err != nil {
				return nil, err
			}
		}
		if o.encrypted {
			if err := c.seal(i, &jobs[i], o.encryptMeta); err != nil {
				return nil, err
			}
		}
		if err := store.ValidateNewJob(o.after.validated(jobs[i])); err != nil {
			return nil, fmt.Errorf("worker: payload %d (%T): %w", i, p, err)
		}
	}
	return jobs, nil
}

// queueOf resolves the queue of one payload.
func (c *Client) queueOf(p any, explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	c.mu.Lock()
	q, ok := c.queues[reflect.TypeOf(p)]
	c.mu.Unlock()
	if ok {
		return q, nil
	}
	if qr, ok := p.(Queuer); ok {
		return qr.Queue(), nil
	}
	return "", fmt.Errorf("worker: no queue known for payload type %T: give it a Queue() string method, call RegisterQueue, or pass WithQueue", p)
}

// insert gives the jobs ids from the transaction's time, in ascending order,
// and the batch's parents (AfterInBatch) theirs, and inserts them. A
// duplicate's id becomes the existing row's, and the option's onDuplicate
// (if set) hears of it.
func (c *Client) insert(ctx context.Context, tx store.Tx, jobs []store.NewJob, o enqueueOptions) error {
	now, err := tx.Now(ctx)
	if err != nil {
		return fmt.Errorf("worker: enqueue: read store time: %w", err)
	}
	ids := make([]ulid.ULID, len(jobs))
	c.mu.Lock()
	for i := range ids {
		ids[i] = clockrng.NewULID(now, c.rnd)
	}
	c.mu.Unlock()
	slices.SortFunc(ids, func(a, b ulid.ULID) int { return a.Compare(b) })
	for i := range jobs {
		jobs[i].ID = ids[i]
	}
	members := jobs
	if o.callback {
		members = makeBatch(jobs)
	}
	o.after.withBatchParents(members)
	dups, err := tx.InsertJobs(ctx, jobs)
	if err != nil {
		return fmt.Errorf("worker: enqueue %d jobs on %q: %w", len(jobs), jobs[0].Queue, err)
	}
	for _, d := range dups {
		jobs[d.Index].ID = d.Existing.ID
		if o.unique.onDuplicate != nil {
			o.unique.onDuplicate(d.Index, d.Existing)
		}
	}
	return nil
}
