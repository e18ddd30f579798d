package pg

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// ErrTxDone is returned by every method of a Tx used after the InTx or
// InPgxTx call that received it returned; nothing is read or written.
var ErrTxDone = errors.New("store/pg: transaction used after InTx returned")

// tx is one store transaction on a pgx transaction (or savepoint).
type tx struct {
	s    *Store
	db   pgx.Tx
	arg  pgtype.Timestamptz // nowArg's value, fixed when the transaction starts
	now  time.Time          // the store's now, once read; zero before
	done atomic.Bool
	// forgetAtCommit: the transaction wrote rows that may sort below a
	// reservation hint (madeAvailable).
	forgetAtCommit bool
}

// check is called first by every method, so that a Tx kept past its InTx
// fails even where no statement would have reached pgx.
func (t *tx) check() error {
	if t.done.Load() {
		return ErrTxDone
	}
	return nil
}

var _ store.Tx = (*tx)(nil)

// InTx runs fn in a READ COMMITTED transaction from the pool. It commits
// when fn returns nil and rolls back when fn returns an error or panics (the
// panic continues after the rollback). A failed commit wraps
// store.ErrUnavailable when the connection failed: the transaction may then
// have committed.
//
// The isolation is asked for, not left to the server's
// default_transaction_isolation: the statements that read after taking a
// lock (a sequence's last place, a limit's count) need each statement's
// own snapshot.
func (s *Store) InTx(ctx context.Context, fn func(store.Tx) error) error {
	db, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fmt.Errorf("begin transaction: %w", s.classify(err))
	}
	return s.run(ctx, db, func(t store.Tx) error {
		err := fn(t)
		dropIfReadOnly(db.Conn(), err) // before run's rollback returns it to the pool
		return err
	})
}

// InPgxTx runs fn inside the caller's transaction outer, under a savepoint:
// when fn fails, what it did is undone and outer stays usable; when it
// succeeds, its writes (and notifications) take effect only if outer
// commits. The store's tables are named with the schema, so outer may come
// from any connection.
func (s *Store) InPgxTx(ctx context.Context, outer pgx.Tx, fn func(store.Tx) error) error {
	sp, err := outer.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin savepoint: %w", s.classify(err))
	}
	return s.run(ctx, sp, fn)
}

// run calls fn on db and then commits db, or rolls it back if fn fails or
// panics.
func (s *Store) run(ctx context.Context, db pgx.Tx, fn func(store.Tx) error) (err error) {
	finished := false
	// Read at the start, as store/mem does: the clock may move while the
	// transaction runs.
	t := &tx{s: s, db: db, arg: s.nowParam()}
	t.now = t.arg.Time // zero with the database's clock: Now reads it then
	defer func() {
		t.done.Store(true)
		if !finished || err != nil {
			// The error that matters is fn's; a failed rollback leaves a
			// broken connection that pgx and the pool discard.
			_ = db.Rollback(ctx)
			s.hints.forget() // rows it reserved are available again
		}
	}()
	err = fn(t)
	t.done.Store(true)
	finished = true
	if err != nil {
		return err
	}
	if err := db.Commit(ctx); err != nil {
		return fmt.Errorf("commit transaction: %w", s.classify(err)) // the rollback above forgets the hints
	}
	if t.forgetAtCommit {
		s.hints.forget()
	}
	return nil
}

// Wrote reports whether the transaction has written, or locked, a row so
// far: whether PostgreSQL gave it a transaction id. The simulator's
// DiffBackend asks, so as not to read every row back after a
// transaction that changed none (half of a seed's).
func (t *tx) Wrote(ctx context.Context) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	var wrote bool
	if err := t.db.QueryRow(ctx, "SELECT txid_current_if_assigned() IS NOT NULL").Scan(&wrote); err != nil {
		return false, fmt.Errorf("ask whether the transaction wrote: %w", t.s.classify(err))
	}
	return wrote, nil
}

// Now returns the store's now for this transaction: Options.Now as read
// when the transaction began, truncated to the microsecond, or else the
// database's now() (also the transaction's start), queried once.
func (t *tx) Now(ctx context.Context) (time.Time, error) {
	if err := t.check(); err != nil {
		return time.Time{}, err
	}
	if !t.now.IsZero() {
		return t.now, nil
	}
	var now time.Time
	if err := t.db.QueryRow(ctx, "SELECT now()").Scan(&now); err != nil {
		return time.Time{}, fmt.Errorf("read the database time: %w", t.s.classify(err))
	}
	t.now = rules.Truncate(now)
	return t.now, nil
}

// nowArg is the $now parameter of every statement of the transaction.
func (t *tx) nowArg() pgtype.Timestamptz { return t.arg }

// nowParam reads Options.Now once for a new transaction and returns it as
// the $now parameter: truncated like every store time, or NULL when the
// clock is unset, so that SQL's coalesce($now, now()) uses the database's.
func (s *Store) nowParam() pgtype.Timestamptz {
	if s.opts.Now == nil {
		return pgtype.Timestamptz{}
	}
	return pgtype.Timestamptz{Time: rules.Truncate(s.opts.Now()), Valid: true}
}

// fail wraps a failed statement's error with the operation that ran it.
func (t *tx) fail(err error, format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, t.s.classify(err))...)
}
