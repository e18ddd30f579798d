package mem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// ErrTxDone is returned by every method of a Tx used after the InTx call
// that received it returned. The store's state is not touched.
var ErrTxDone = errors.New("store/mem: transaction used after InTx returned")

// Store is an in-memory store.Store. It is safe for concurrent use; its
// transactions run one at a time.
type Store struct {
	mu   sync.Mutex // serialises transactions and guards everything below
	now  func() time.Time
	hook func(store.Commit)

	jobs      map[ulid.ULID]*store.Job // rows are immutable: a write stores a new pointer
	ids       []ulid.ULID              // every job id, sorted; may hold deleted ids (see staleIDs)
	staleIDs  int                      // how many ids in ids no longer exist
	available map[string]*entryHeap    // per queue: available rows by id
	scheduled entryHeap                // scheduled rows by (scheduled_at, id)
	ended     entryHeap                // terminal rows by (end time, id)
	running   map[ulid.ULID][]ulid.ULID
	runningIn map[string]int // per queue: how many rows are running
	queues    map[string]*store.Queue
	rateSlots map[string][]time.Time  // per rate-limited queue: each slot's last start (see store/internal/rules/rules.go)
	prevOf    map[ulid.ULID]ulid.ULID // next_attempt_id -> the row pointing at it
	unique    map[string]ulid.ULID    // stored unique key -> the row holding it
	sequences sequences               // sequence key -> its rows (sequence.go)
	// seqHolding: sequence key -> its rows that hold it (Job.HoldsSequence),
	// which a reservation reads for every ready row of a sequence.
	seqHolding sequences
	// childrenOf: parent row id -> the sorted ids of the rows waiting for it.
	childrenOf map[ulid.ULID][]ulid.ULID
	// batches: callback id -> its batch; uncounted: the member rows that
	// ended for good and that their batch has not counted (batch.go).
	batches   map[ulid.ULID]*store.Batch
	uncounted map[ulid.ULID]bool
	// awaited: the rows marked awaited (awaited.go).
	awaited map[ulid.ULID]bool

	workers   map[ulid.ULID]*store.Worker
	lease     *store.Lease
	schedules map[string]*store.Schedule

	// deadJobs is the dead job rows since the last VacuumJobs, vacuum the
	// last vacuum recorded (see vacuum.go).
	deadJobs int64
	vacuum   *store.Vacuum

	listeners listeners

	// openBuf is openQueues' scratch space, kept between reservations
	// because every reservation needs one.
	openBuf []openQueue
	// skipBuf is Reserve's list of the entries it skipped, kept between
	// reservations: a key at its limit has its jobs skipped at each one.
	skipBuf []waiting
	// parked holds, per sequence key, the available-heap entries Reserve
	// took out because an earlier row of the key holds it (park).
	parked map[string][]waiting
	// callbackRows counts the rows of each batch's callback (index.go).
	callbackRows map[ulid.ULID]int
	// seqFronts memoises the sequences' fronts for Reserve until a row of
	// their key changes (sequenceHead).
	seqFronts map[string]seqFront
	// keyRooms is keyRoomOf's count of each per-key-limited queue.
	keyRooms map[string]*keyRoom
}

// New returns an empty store whose clock is now. Every time the store writes
// or compares is now() at the start of the transaction, truncated to the
// microsecond, in UTC.
func New(now func() time.Time) *Store {
	return &Store{
		now:          now,
		jobs:         map[ulid.ULID]*store.Job{},
		available:    map[string]*entryHeap{},
		running:      map[ulid.ULID][]ulid.ULID{},
		runningIn:    map[string]int{},
		queues:       map[string]*store.Queue{},
		rateSlots:    map[string][]time.Time{},
		prevOf:       map[ulid.ULID]ulid.ULID{},
		unique:       map[string]ulid.ULID{},
		sequences:    sequences{},
		seqHolding:   sequences{},
		childrenOf:   map[ulid.ULID][]ulid.ULID{},
		batches:      map[ulid.ULID]*store.Batch{},
		uncounted:    map[ulid.ULID]bool{},
		awaited:      map[ulid.ULID]bool{},
		workers:      map[ulid.ULID]*store.Worker{},
		schedules:    map[string]*store.Schedule{},
		seqFronts:    map[string]seqFront{},
		parked:       map[string][]waiting{},
		callbackRows: map[ulid.ULID]int{},
	}
}

// SetCommitHook registers fn to be called after every successful commit, in
// commit order, synchronously and with the store still locked (fn must not
// start a transaction). A nil fn removes the hook. Rolled-back transactions
// produce no call.
func (s *Store) SetCommitHook(fn func(store.Commit)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = fn
}

// InTx runs fn in a transaction. It commits when fn returns nil; when fn
// returns an error or panics, every write fn made is undone (and a panic is
// re-raised after the undo). fn must not call InTx on the same store: the
// store would deadlock, as transactions are serialised.
func (s *Store) InTx(ctx context.Context, fn func(store.Tx) error) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &tx{s: s, now: rules.Truncate(s.now())}
	committed := false
	defer func() {
		t.done.Store(true)
		if !committed {
			t.rollback()
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	committed = true
	t.commit()
	return nil
}
