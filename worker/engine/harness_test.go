package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/clockrng"
	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/mem"
)

// env is an in-memory store whose time the test moves by hand.
type env struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	now time.Time
	mem *mem.Store
	st  *faultStore
	rnd *clockrng.Rand
}

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), now: epoch, rnd: clockrng.NewRand(1)}
	e.mem = mem.New(e.storeNow)
	e.st = &faultStore{Store: e.mem}
	return e
}

func (e *env) storeNow() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

// advance moves the store's time; tests pass the same time to Tick unless
// they are about clock skew.
func (e *env) advance(d time.Duration) time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
	return e.now
}

// testConfig is the defaults on queue "q" without jitter.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.Queues = []string{"q"}
	cfg.PollJitter = 0
	return cfg
}

// recorder keeps every event a core emits.
type recorder struct{ events []Event }

func (r *recorder) Observe(e Event) { r.events = append(r.events, e) }

func (r *recorder) count(k EventKind) int { return len(r.of(k)) }

func (r *recorder) of(k EventKind) []Event {
	var out []Event
	for _, e := range r.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func (e *env) core(cfg Config, seed uint64) (*Core, *recorder) {
	e.t.Helper()
	rec := &recorder{}
	c, err := NewCore(e.st, cfg, clockrng.NewRand(seed), rec)
	if err != nil {
		e.t.Fatalf("NewCore: %v", err)
	}
	return c, rec
}

// tick runs one Tick at the store's time and fails the test on an error.
func (e *env) tick(c *Core) []store.Job {
	e.t.Helper()
	res, err := c.tick(e.ctx, e.storeNow())
	if err != nil {
		e.t.Fatalf("Tick: %v", err)
	}
	if err := c.runDuties(e.ctx); err != nil {
		e.t.Fatalf("Duties: %v", err)
	}
	return res.Start
}

// enqueue inserts n jobs on queue q, available now, and returns their ids.
func (e *env) enqueue(q string, n int) []ulid.ULID {
	e.t.Helper()
	var ids []ulid.ULID
	e.inTx(func(tx store.Tx) error {
		now, _ := tx.Now(e.ctx)
		jobs := make([]store.NewJob, n)
		for i := range jobs {
			id := clockrng.NewULID(now, e.rnd)
			ids = append(ids, id)
			jobs[i] = store.NewJob{ID: id, Queue: q, Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
		}
		_, err := tx.InsertJobs(e.ctx, jobs)
		return err
	})
	return ids
}

func (e *env) inTx(fn func(tx store.Tx) error) {
	e.t.Helper()
	if err := e.mem.InTx(e.ctx, fn); err != nil {
		e.t.Fatalf("test transaction: %v", err)
	}
}

func (e *env) job(id ulid.ULID) store.Job {
	e.t.Helper()
	var j store.Job
	e.inTx(func(tx store.Tx) error {
		var err error
		j, err = tx.GetJob(e.ctx, id)
		return err
	})
	return j
}

// jobs returns the rows in status, every row for "".
func (e *env) jobs(status store.Status) []store.Job {
	e.t.Helper()
	if status == "" {
		return e.state().Jobs
	}
	return e.state().JobsIn(status)
}

func (e *env) workers() []store.Worker {
	e.t.Helper()
	return e.state().Workers
}

func (e *env) state() store.State {
	e.t.Helper()
	s, err := store.Snapshot(e.ctx, e.mem)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func ids(jobs []store.Job) []ulid.ULID {
	out := make([]ulid.ULID, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}

// finishAll reports every running job of c finished with decision d.
func finishAll(c *Core, d Decision, reason string) {
	for _, id := range c.runningIDs() {
		c.finished(Result{JobID: id, Decision: d, Reason: reason})
	}
}

// faultStore wraps a store to inject failures before or after a commit and
// to record which operations each transaction called.
type faultStore struct {
	store.Store
	// before runs before transaction number n (from 1) starts.
	before func(n int)
	// failBefore rolls the transaction back with ErrUnavailable after fn
	// ran if it returns true for the operations fn called.
	failBefore func(ops []string) bool
	// failAfter commits and then returns ErrUnavailable if it returns true.
	failAfter func(ops []string) bool
	n         int
	log       [][]string // operations of every committed transaction
}

func (f *faultStore) InTx(ctx context.Context, fn func(store.Tx) error) error {
	f.n++
	if f.before != nil {
		f.before(f.n)
	}
	var ops []string
	err := f.Store.InTx(ctx, func(tx store.Tx) error {
		ops = nil
		if err := fn(&recTx{Tx: tx, ops: &ops}); err != nil {
			return err
		}
		if f.failBefore != nil && f.failBefore(ops) {
			return fmt.Errorf("injected failure before commit: %w", store.ErrUnavailable)
		}
		return nil
	})
	if err != nil {
		return err
	}
	f.log = append(f.log, ops)
	if f.failAfter != nil && f.failAfter(ops) {
		return fmt.Errorf("injected failure after commit: %w", store.ErrUnavailable)
	}
	return nil
}

// has reports whether a transaction called op.
func has(op string) func([]string) bool {
	return func(ops []string) bool { return slices.Contains(ops, op) }
}

// once wraps a predicate so it fires at most one time.
func once(p func([]string) bool) func([]string) bool {
	fired := false
	return func(ops []string) bool {
		if !fired && p(ops) {
			fired = true
			return true
		}
		return false
	}
}

// recTx records the job-path and lease operations a transaction calls.
type recTx struct {
	store.Tx
	ops *[]string
}

func (t *recTx) rec(op string) { *t.ops = append(*t.ops, op) }

func (t *recTx) Heartbeat(ctx context.Context, id ulid.ULID) error {
	t.rec("Heartbeat")
	return t.Tx.Heartbeat(ctx, id)
}
func (t *recTx) ExpireLease(ctx context.Context) (bool, error) {
	t.rec("ExpireLease")
	return t.Tx.ExpireLease(ctx)
}
func (t *recTx) TryAcquireLease(ctx context.Context, w ulid.ULID, ttl time.Duration) (bool, error) {
	t.rec("TryAcquireLease")
	return t.Tx.TryAcquireLease(ctx, w, ttl)
}
func (t *recTx) LockLeaderDuties(ctx context.Context, w ulid.ULID) (bool, error) {
	t.rec("LockLeaderDuties")
	return t.Tx.LockLeaderDuties(ctx, w)
}
func (t *recTx) Reserve(ctx context.Context, w ulid.ULID, q []string, limit int) ([]store.Job, error) {
	t.rec("Reserve")
	return t.Tx.Reserve(ctx, w, q, limit)
}
func (t *recTx) RunningJobs(ctx context.Context, w ulid.ULID) ([]store.Job, error) {
	t.rec("RunningJobs")
	return t.Tx.RunningJobs(ctx, w)
}
func (t *recTx) CompleteJobs(ctx context.Context, c store.Completion) ([]ulid.ULID, error) {
	t.rec("CompleteJobs")
	return t.Tx.CompleteJobs(ctx, c)
}
func (t *recTx) FailJob(ctx context.Context, w, id ulid.ULID, reason string) error {
	t.rec("FailJob")
	return t.Tx.FailJob(ctx, w, id, reason)
}
