package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tickwork/tickwork/store"
	"github.com/tickwork/tickwork/store/internal/rules"
)

// SetQueueDeadLetter sets the queue's dead-letter queue ("" clears it). It
// holds the queue's lock exclusive, as every change of its row does.
func (t *tx) SetQueueDeadLetter(ctx context.Context, name, dead string) error {
	if err := rules.ValidateDeadLetter(name, dead); err != nil {
		return err
	}
	return t.editQueue(ctx, "dead-letter", name, rules.DeadLetterEdit(dead))
}

// DeadLetterJob moves the row in one statement by primary key when it
// failed for good and its queue has a dead-letter queue, and otherwise
// reads it in the same statement, to say why not or to return it
// unchanged: a failure for good costs one round trip more, whether or
// not its queue dead-letters.
func (t *tx) DeadLetterJob(ctx context.Context, id ulid.ULID) (store.Job, error) {
	if err := t.check(); err != nil {
		return store.Job{}, err
	}
	rows, err := t.db.Query(ctx, t.s.sql(deadLetterSQL), idArg(id))
	if err != nil {
		return store.Job{}, t.fail(err, "dead-letter job %s", id)
	}
	job, err := pgx.CollectExactlyOneRow(rows, scanJob)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return store.Job{}, fmt.Errorf("dead-letter job %s: %w", id, store.ErrNotFound)
	case err != nil:
		return store.Job{}, t.fail(err, "dead-letter job %s", id)
	}
	if err := rules.CheckDeadLetter(job); err != nil {
		return store.Job{}, err
	}
	return job, nil
}

// deadLetterSQL moves job $1, failed for good and not dead-lettered yet,
// to its queue's dead-letter queue, keeping the queue it came from, and
// returns it; it returns the row as it is when it did not move it.
const deadLetterSQL = `
	WITH moved AS (
		UPDATE {schema}.jobs AS j SET dead_from = j.queue, queue = q.dead_letter
		FROM {schema}.queues AS q
		WHERE j.id = $1 AND q.name = j.queue AND q.dead_letter IS NOT NULL
		  AND j.status IN ('failed', 'lost') AND j.next_attempt_id IS NULL AND j.dead_from IS NULL
		RETURNING ` + jobColumns + `)
	SELECT ` + jobColumns + ` FROM moved
	UNION ALL
	SELECT ` + jobColumns + ` FROM {schema}.jobs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM moved)
`
