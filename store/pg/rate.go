package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// resizeRateSlots gives queue name n rate slots, keeping the latest starts
// of those it had (rules.ResizeRateSlots). SetQueueRate calls it holding
// the queue's lock exclusive, so no reservation holds a slot meanwhile.
func (t *tx) resizeRateSlots(ctx context.Context, name string, n int) error {
	rows, err := t.db.Query(ctx, t.s.sql(`SELECT nullif(last_start, '-infinity') FROM {schema}.queue_rate_slots WHERE queue = $1`), name)
	if err != nil {
		return err
	}
	last, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (time.Time, error) {
		var ts pgtype.Timestamptz
		err := r.Scan(&ts)
		return toTime(ts), err
	})
	if err != nil || len(last) == n {
		return err
	}
	kept := rules.ResizeRateSlots(last, n)
	stamps := make([]pgtype.Timestamptz, len(kept))
	for i, l := range kept {
		stamps[i] = timeArg(l)
	}
	b := &pgx.Batch{}
	b.Queue(t.s.sql(`DELETE FROM {schema}.queue_rate_slots WHERE queue = $1`), name)
	b.Queue(t.s.sql(`INSERT INTO {schema}.queue_rate_slots (queue, slot, last_start)
		SELECT $1, s.slot, coalesce(s.last_start, '-infinity') FROM unnest($2::timestamptz[]) WITH ORDINALITY AS s(last_start, slot)`),
		name, stamps)
	return t.db.SendBatch(ctx, b).Close()
}
