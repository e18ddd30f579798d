package pg_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestClaimOfASlotCommittedAfterItsSnapshot: a claim whose snapshot was
// taken before another reservation filled a slot, and which locks that
// slot after the reservation committed, counts the slot's new job as not
// running yet (its snapshot says so). It must record the slot as stale,
// and the reservation after it must count the slot's jobs again and
// reserve nothing under a limit of one. The claim runs as a cursor, whose
// snapshot is taken when it is declared and whose rows are locked when
// they are fetched: that is the window, which otherwise lasts microseconds
// inside one statement.
func TestClaimOfASlotCommittedAfterItsSnapshot(t *testing.T) {
	s := pgtest.Open(t, nil)
	ws := registerWorkers(t, s, 2)
	insert(t, s,
		store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`1`)},
		store.NewJob{ID: newULID(t), Queue: "q", Payload: []byte(`2`)})
	quickly(t, s, "limit", func(ctx context.Context, tx store.Tx) error { return tx.SetQueueLimit(ctx, "q", 1) })
	ctx := t.Context()
	late, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Rollback(ctx)
	if _, err := late.Exec(ctx, "DECLARE claim CURSOR FOR "+pg.ClaimRunSlotsSQL(s), []string{"q"}, 1, idText(ws[1]), nil); err != nil {
		t.Fatal(err)
	}
	quickly(t, s, "reserve first", func(ctx context.Context, tx store.Tx) error {
		jobs, err := tx.Reserve(ctx, ws[0], []string{"q"}, 1)
		if err == nil && len(jobs) != 1 {
			t.Fatalf("the first reservation got %d jobs, want 1", len(jobs))
		}
		return err
	})
	var setting string
	if err := late.QueryRow(ctx, "FETCH ALL FROM claim").Scan(&setting); err != nil {
		t.Fatal(err)
	}
	var claimed []struct {
		Slot  int      `json:"slot"`
		Still []string `json:"still"`
		Stale bool     `json:"stale"`
	}
	if err := json.Unmarshal([]byte(setting), &claimed); err != nil {
		t.Fatalf("tickwork.run_slots %q: %v", setting, err)
	}
	if len(claimed) != 1 || !claimed[0].Stale || len(claimed[0].Still) != 0 {
		t.Fatalf("claimed %+v, want slot 1 stale, with no job seen running (the snapshot predates the first reservation)", claimed)
	}
	if _, err := late.Exec(ctx, pg.IndexScansOnlySQL); err != nil {
		t.Fatal(err)
	}
	rows, err := late.Query(ctx, pg.ReserveSQL(s), nil, idText(ws[1]), []string{"q"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	reserved, err := pgx.CollectRows(rows, func(pgx.CollectableRow) (struct{}, error) { return struct{}{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(reserved) != 0 {
		t.Fatalf("the late reservation got %d jobs with the queue's one place taken", len(reserved))
	}
}
