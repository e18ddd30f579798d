package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/oklog/ulid/v2"
)

// The planted bugs below split one of the lease's or the duties'
// statements in two: a read that decides, then a write that does not
// re-check what the read found (its edit, for the lease's, is in
// plantedEdits). Run alone, the pair does what the one
// statement does, so a serial run (simulate -store pg) cannot tell them
// apart; only a transaction of another process committed between the two
// shows the difference (simulate -store pg -interleave). Each runs only
// when its bug is planted (mutant.On, false in a normal build).

// leaseExpiredSplit is ExpireLease's read for mutant.PGExpireUnchecked:
// whether the lease expired, read before the statement that deletes it,
// which then no longer re-checks the expiry.
func (t *tx) leaseExpiredSplit(ctx context.Context) (bool, error) {
	var expired bool
	err := t.db.QueryRow(ctx, t.s.sql(`
		SELECT expires_at <= coalesce($1::timestamptz, now()) FROM {schema}.leader`), t.nowArg()).Scan(&expired)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, t.fail(err, "expire lease")
	}
	return expired, nil
}

// ownLeaseSplit is ReleaseLease's read for mutant.PGResignUnchecked:
// whether worker holds the lease, read before the statement that deletes
// it, which then no longer names the holder.
func (t *tx) ownLeaseSplit(ctx context.Context, worker ulid.ULID) (bool, error) {
	var holder pgtype.UUID
	err := t.db.QueryRow(ctx, t.s.sql(`SELECT worker_id FROM {schema}.leader`)).Scan(&holder)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, t.fail(err, "release lease of worker %s", worker)
	}
	return toULID(holder) == worker, nil
}

// shutdownDeadWorkersSplit is ShutdownDeadWorkers for
// mutant.PGDeadUnchecked: the stale workers listed first, then shut down
// by id whatever their heartbeat says now.
func (t *tx) shutdownDeadWorkersSplit(ctx context.Context, threshold time.Duration) ([]ulid.ULID, error) {
	stale, err := t.queryIDs(ctx, t.s.sql(`
		SELECT id FROM {schema}.workers
		WHERE shutdown_at IS NULL AND last_seen_at < coalesce($1::timestamptz, now()) - $2::interval`),
		t.nowArg(), durationArg(threshold))
	if err == nil && len(stale) > 0 {
		stale, err = t.queryIDs(ctx, t.s.sql(`
			WITH dead AS (
				UPDATE {schema}.workers SET shutdown_at = coalesce($1::timestamptz, now())
				WHERE id = ANY($2::uuid[]) AND shutdown_at IS NULL
				RETURNING id)
			SELECT id FROM dead ORDER BY id`), t.nowArg(), idArgs(stale))
	}
	if err != nil {
		return nil, t.fail(err, "shut down workers unseen for %v", threshold)
	}
	return stale, nil
}
