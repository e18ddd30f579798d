package pg_test

import (
	"context"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/pg/pgtest"
)

// TestCompletionBehindAChildsInsertKeepsTheParent: on a queue without
// history, a completion whose statement began while a child's insert held
// its parent (locked, marked awaited, job_waits written) waits for that
// insert, and once it commits completes the parent instead of deleting
// it, though its snapshot holds no job_waits row: the row's awaited mark,
// reread, keeps it. The leader's settling then releases the child.
func TestCompletionBehindAChildsInsertKeepsTheParent(t *testing.T) {
	s := pgtest.Open(t, nil)
	w := registerWorkers(t, s, 1)[0]
	parent, child := newULID(t), newULID(t)
	insert(t, s, store.NewJob{ID: parent, Queue: "q", Payload: []byte(`1`)})
	quickly(t, s, "set history and reserve", func(ctx context.Context, tx store.Tx) error {
		if err := tx.SetQueueHistory(ctx, "q", false); err != nil {
			return err
		}
		_, err := tx.Reserve(ctx, w, []string{"q"}, 1)
		return err
	})
	release := holdTx(t, s, func(tx store.Tx) error {
		_, err := tx.InsertJobs(t.Context(), []store.NewJob{{ID: child, Queue: "c", Payload: []byte(`2`), Parents: []ulid.ULID{parent}}})
		return err
	})
	var fenced []ulid.ULID
	completing := inBackground(s, func(ctx context.Context, tx store.Tx) (err error) {
		fenced, err = tx.CompleteJobs(ctx, store.Completion{Worker: w, IDs: []ulid.ULID{parent}})
		return err
	})
	waitForLock(t, s, "transactionid", "the parent's row") // a row's lock waits for its holder's transaction
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-completing; err != nil || len(fenced) != 0 {
		t.Fatalf("completion: %v, fenced %v", err, fenced)
	}
	var p, c store.Job
	quickly(t, s, "settle and read", func(ctx context.Context, tx store.Tx) (err error) {
		if _, err = tx.SettleWaitingJobs(ctx); err != nil {
			return err
		}
		if p, err = tx.GetJob(ctx, parent); err != nil {
			return err
		}
		c, err = tx.GetJob(ctx, child)
		return err
	})
	if p.Status != store.Completed {
		t.Errorf("parent after the completion: %s", store.FormatJob(p))
	}
	if c.Status != store.Available {
		t.Errorf("child after the settling: %s", store.FormatJob(c))
	}
}
