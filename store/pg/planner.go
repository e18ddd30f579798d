package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// indexScansOnlySQL turns sequential and bitmap scans off for the rest of
// the transaction, keeping their settings to restore. The statements it
// guards read partial indexes whose entries die as jobs move on (available,
// running, scheduled): the planner picks between plans on row estimates,
// and a table that changes faster than ANALYZE runs (or autovacuum off, or
// a freshly grown table) gives it estimates off by a millionfold. It then
// bitmap-scans the whole index and sorts every row to return a hundred
// (330 ms per reservation with 800,000 jobs waiting), and bitmap
// scans never mark the entries of dead rows, so each scan reads every
// entry the index ever had until a vacuum. A plain index scan reads the
// entries its conditions bound, in index order, and marks the dead ones so
// that later scans skip their rows. With seqscan and bitmapscan off it is
// the only plan left that is not penalized, whatever the estimates; sorts
// stay allowed (an index scan plus a small sort is fine). JIT is off too:
// a small table with no usable index (workers) is still read sequentially,
// at a penalized cost far above jit_above_cost, and compiling the plan
// would then cost more than running it.
//
// The statements it guards also take their prepared statement's generic
// plan (plan_cache_mode): a custom plan is made again at every execution,
// which for the reservation cost about a tenth of a job pass with 100 jobs,
// and the plan tests hold the generic plans to the same index scans as
// the custom ones. (Through PgBouncer, statements are not prepared and are
// planned every time whatever the setting.)
//
// A prepared statement's generic plan, once PostgreSQL has settled on it,
// serves its later executions whatever their settings, so a statement
// guarded anywhere must be guarded everywhere it runs: the job pass
// guards all its statements on jobs, and the Tx methods that share them
// do the same (see RunJobPass).
const indexScansOnlySQL = `SELECT
	set_config('tickwork.enable_seqscan', current_setting('enable_seqscan'), true),
	set_config('tickwork.enable_bitmapscan', current_setting('enable_bitmapscan'), true),
	set_config('tickwork.jit', current_setting('jit'), true),
	set_config('tickwork.plan_cache_mode', current_setting('plan_cache_mode'), true),
	set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true),
	set_config('enable_bitmapscan', 'off', true),
	set_config('jit', 'off', true)`

// restorePlannerSQL restores what indexScansOnlySQL changed, so that the
// rest of the transaction (a caller's, with InPgxTx) plans as before.
const restorePlannerSQL = `SELECT
	set_config('enable_seqscan', current_setting('tickwork.enable_seqscan'), true),
	set_config('enable_bitmapscan', current_setting('tickwork.enable_bitmapscan'), true),
	set_config('jit', current_setting('tickwork.jit'), true),
	set_config('plan_cache_mode', current_setting('tickwork.plan_cache_mode'), true)`

// queueIndexScansOnly adds query, planned with index scans only, between
// the statements that change and restore the planner's settings. The three
// go in the same round trip; readIndexScansOnly reads their answers.
func queueIndexScansOnly(b *pgx.Batch, query string, args ...any) {
	b.Queue(indexScansOnlySQL)
	b.Queue(query, args...)
	b.Queue(restorePlannerSQL)
}

// readIndexScansOnly reads the answers of queueIndexScansOnly's statements,
// calling read for the guarded query's.
func readIndexScansOnly(br pgx.BatchResults, read func() error) error {
	if _, err := br.Exec(); err != nil {
		return err
	}
	if err := read(); err != nil {
		return err
	}
	_, err := br.Exec()
	return err
}

// indexScansOnly runs query planned with index scans only, in one round
// trip, and calls read to read its answer.
func (t *tx) indexScansOnly(ctx context.Context, read func(pgx.BatchResults) error, query string, args ...any) error {
	b := &pgx.Batch{}
	queueIndexScansOnly(b, query, args...)
	br := t.db.SendBatch(ctx, b)
	err := readIndexScansOnly(br, func() error { return read(br) })
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// queryIndexScansOnly is indexScansOnly for a query whose rows read reads.
func (t *tx) queryIndexScansOnly(ctx context.Context, read func(pgx.Rows) error, query string, args ...any) error {
	return t.indexScansOnly(ctx, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		return read(rows)
	}, query, args...)
}
