package storetest

import (
	"context"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
	"pgregory.net/rapid"

	"github.com/tickwork/tickwork/store"
)

// drawSetQueueDeadLetter is usually a dead-letter queue of the drawn
// queue's own (its name and ".dead"), sometimes another queue's name, a
// clear, or the queue itself (refused).
func drawSetQueueDeadLetter(rt *rapid.T, _ *diff) op {
	q := drawQueueName(rt)
	dead := rapid.SampledFrom([]string{q + ".dead", q + ".dead", drawQueueName(rt), "", q}).Draw(rt, "dead-letter queue")
	return op{fmt.Sprintf("setQueueDeadLetter %q %q", q, dead), func(ctx context.Context, tx store.Tx) (string, error) {
		return "", tx.SetQueueDeadLetter(ctx, q, dead)
	}}
}

// drawDeadLetterJob is usually a failed or lost row, so that a queue with
// a dead-letter queue moves it; sometimes any job.
func drawDeadLetterJob(rt *rapid.T, d *diff) op {
	id := d.pickFailedOrLost(rt)
	return op{fmt.Sprintf("deadLetterJob %s", id), func(ctx context.Context, tx store.Tx) (string, error) {
		j, err := tx.DeadLetterJob(ctx, id)
		return store.FormatJob(j), err
	}}
}

// drawRedrive redrives a page of up to two failed rows of a drawn queue's
// dead-letter queue, their new ids drawn ahead so that both stores use
// the same.
func drawRedrive(rt *rapid.T, d *diff) op {
	dead := drawQueueName(rt) + ".dead"
	ids := []ulid.ULID{d.newJobID(rt), d.newJobID(rt)}
	return op{fmt.Sprintf("redrive %q %v", dead, ids), func(ctx context.Context, tx store.Tx) (string, error) {
		left := ids
		newID := func(time.Time) ulid.ULID { id := left[0]; left = left[1:]; return id }
		f := store.JobFilter{Status: store.Failed, Queue: dead, LastAttempt: true, Limit: len(ids)}
		next, page, more, err := store.RedrivePage(ctx, tx, f, newID)
		return fmt.Sprintf("%s after %s more %t", fmtJobs(next), page.After, more), err
	}}
}
