package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/internal/mutant"
	"github.com/tickwork/tickwork/store"
)

// The lease statements never lock the leader row while another worker holds
// a valid lease: every worker runs them each tick, and a row lock there
// would make all ticks wait for each other, as in the original worker,
// whose ticks all held the leader row lock. ExpireLease's DELETE
// only locks a row its WHERE matches (an expired one); TryAcquireLease reads
// with a plain SELECT and writes only when the lease is free or its own.

func (t *tx) ExpireLease(ctx context.Context) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	if mutant.On(mutant.PGExpireUnchecked) {
		if expired, err := t.leaseExpiredSplit(ctx); !expired || err != nil {
			return false, err
		}
	}
	tag, err := t.db.Exec(ctx, t.s.stmt.expireLease, t.nowArg())
	if err != nil {
		return false, t.fail(err, "expire lease")
	}
	return tag.RowsAffected() > 0, nil
}

// expireLeaseSQL deletes the lease if it expired ($1 now).
const expireLeaseSQL = `
	DELETE FROM {schema}.leader WHERE expires_at <= coalesce($1::timestamptz, now())`

func (t *tx) TryAcquireLease(ctx context.Context, worker ulid.ULID, ttl time.Duration) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	var live bool
	var holder pgtype.UUID
	var valid pgtype.Bool
	err := t.db.QueryRow(ctx, t.s.sql(`
		SELECT `+workerLive+`,
		       l.worker_id, l.expires_at > coalesce($1::timestamptz, now())
		FROM (SELECT) AS one LEFT JOIN {schema}.leader AS l ON true`), t.nowArg(), idArg(worker)).
		Scan(&live, &holder, &valid)
	if err != nil {
		return false, t.fail(err, "acquire lease for worker %s", worker)
	}
	if !live {
		return false, fmt.Errorf("acquire lease for worker %s: no live worker: %w", worker, store.ErrNotFound)
	}
	var query string
	switch {
	case !holder.Valid:
		query = t.s.stmt.takeLease
	case toULID(holder) == worker && valid.Bool:
		query = t.s.stmt.renewLease
	default:
		return false, nil
	}
	tag, err := t.db.Exec(ctx, query, t.nowArg(), idArg(worker), durationArg(ttl))
	if err != nil {
		return false, t.fail(err, "acquire lease for worker %s", worker)
	}
	// No row: another transaction took or expired the lease meanwhile, or
	// the leader declared this worker dead since the SELECT.
	return tag.RowsAffected() == 1, nil
}

// takeLeaseSQL creates the lease for worker $2 when there is none. Like
// renewLeaseSQL, it re-checks workerLive in the statement that writes the
// lease: the SELECT before it is another round trip, and a worker paused
// between the two (a stop signal, a long GC pause) may have been declared
// dead meanwhile and must not take the lease then (seen once in the live
// chaos run). The check share-locks the worker's row (workerLiveLocked): a
// plain read would see the row as a leader's transaction that is declaring
// the worker dead, and has not committed, left it, and both would commit: a
// shut-down worker holding the lease (simulate -store pg -interleave, seed
// 1289). Locked, the statement waits for that transaction and re-checks
// the row it committed.
const takeLeaseSQL = `
	INSERT INTO {schema}.leader (worker_id, elected_at, expires_at)
	SELECT $2, coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()) + $3::interval
	WHERE ` + workerLiveLocked + `
	ON CONFLICT (singleton) DO NOTHING`

// renewLeaseSQL extends worker $2's unexpired lease, the worker's row
// share-locked as in takeLeaseSQL.
const renewLeaseSQL = `
	UPDATE {schema}.leader SET expires_at = coalesce($1::timestamptz, now()) + $3::interval
	WHERE worker_id = $2 AND expires_at > coalesce($1::timestamptz, now()) AND ` + workerLiveLocked

func (t *tx) ReleaseLease(ctx context.Context, worker ulid.ULID) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	if mutant.On(mutant.PGResignUnchecked) {
		if mine, err := t.ownLeaseSplit(ctx, worker); !mine || err != nil {
			return false, err
		}
	}
	rows, err := t.db.Query(ctx, t.s.stmt.releaseLease, idArg(worker), t.s.chStepdown)
	if err != nil {
		return false, t.fail(err, "release lease of worker %s", worker)
	}
	n, err := countRows(rows)
	if err != nil {
		return false, t.fail(err, "release lease of worker %s", worker)
	}
	return n > 0, nil
}

// releaseLeaseSQL deletes worker $1's lease and notifies channel $2 if
// it did.
const releaseLeaseSQL = `
	WITH gone AS (DELETE FROM {schema}.leader WHERE worker_id = $1 RETURNING worker_id)
	SELECT pg_notify($2, '') IS NULL FROM gone`

func (t *tx) GetLease(ctx context.Context) (store.Lease, error) {
	if err := t.check(); err != nil {
		return store.Lease{}, err
	}
	var holder pgtype.UUID
	var elected, expires pgtype.Timestamptz
	err := t.db.QueryRow(ctx, t.s.sql(`SELECT worker_id, elected_at, expires_at FROM {schema}.leader`)).
		Scan(&holder, &elected, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Lease{}, fmt.Errorf("get lease: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Lease{}, t.fail(err, "get lease")
	}
	return store.Lease{WorkerID: toULID(holder), ElectedAt: toTime(elected), ExpiresAt: toTime(expires)}, nil
}

// LockLeaderDuties waits for the schema's duty lock, held until the
// transaction ends, and only then reads the lease, in a statement of its
// own so that it sees what committed while it waited. The two go in one
// round trip: PostgreSQL runs the second after the first has returned, and
// takes its snapshot then. With the database's clock the check uses
// clock_timestamp(), the time after the wait, not now(), the transaction's
// start: a lease that lapsed during the wait must not count.
func (t *tx) LockLeaderDuties(ctx context.Context, worker ulid.ULID) (bool, error) {
	if err := t.check(); err != nil {
		return false, err
	}
	b := &pgx.Batch{}
	b.Queue(t.s.stmt.dutyLock, t.s.dutyKey)
	b.Queue(t.s.sql(`
		SELECT EXISTS (SELECT 1 FROM {schema}.leader
		               WHERE worker_id = $2 AND expires_at > coalesce($1::timestamptz, clock_timestamp()))`),
		t.nowArg(), idArg(worker))
	br := t.db.SendBatch(ctx, b)
	var held bool
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&held)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, t.fail(err, "lock leader duties and check the lease of worker %s", worker)
	}
	return held, nil
}

// countRows reads rows to the end and says how many there were, for
// statements whose rows only carry side effects (pg_notify).
func countRows(rows pgx.Rows) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}
