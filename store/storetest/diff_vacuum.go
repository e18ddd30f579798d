package storetest

import (
	"context"
	"fmt"

	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/internal/format"
	"github.com/tickwork/tickwork/store"
)

// The differential's draws of the vacuum duty's store side: the
// bookkeeping (compared in every result and, through State, after every
// step) and the vacuum itself, which must change no row on either store.
// The dead-row count is not compared: store/pg reads statistics that lag
// the writes, store/mem counts exactly (see vacuum_cases.go).

func drawRecordVacuum(rt *rapid.T, _ *diff) op {
	n := rapid.Int64Range(-1, 20000).Draw(rt, "dead rows")
	return op{fmt.Sprintf("recordVacuum %d", n), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.RecordVacuum(ctx, n)
	}}
}

func drawLastVacuum(*rapid.T, *diff) op {
	return op{"lastVacuum", func(ctx context.Context, tx store.Tx) (string, error) {
		v, err := tx.LastVacuum(ctx)
		return fmt.Sprintf("started=%s dead=%d", format.Time(v.StartedAt), v.DeadRows), err
	}}
}

// vacuumJobs runs VacuumJobs on both stores, outside any transaction.
func (d *diff) vacuumJobs() {
	d.onBoth("vacuumJobs", "vacuumJobs", func(st store.Store) (string, error) {
		v, ok := st.(store.Vacuumer)
		if !ok {
			return fmt.Sprintf("store %T cannot vacuum", st), nil
		}
		return "", v.VacuumJobs(d.ctx)
	})
}
