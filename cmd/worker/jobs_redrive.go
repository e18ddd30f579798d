package main

import (
	"context"
	"fmt"

	"github.com/tickwork/tickwork/internal/names"
	"github.com/tickwork/tickwork/worker"
)

const jobsRedriveSynopsis = `worker jobs redrive -queue DEAD [flags]

Sends every job dead-lettered into queue DEAD (see 'worker queues
set-dead-letter') back to the queue it failed in, as a new attempt
available at once, as 'worker jobs retry' does, and prints the new
attempts' ids, one a line. The dead rows stay in DEAD as history, each
chained to its new attempt. Jobs enqueued into DEAD directly are left
alone. It commits a hundred jobs at a time.`

func (c *cli) jobsRedriveCmd(ctx context.Context, args []string) error {
	fs, db := c.dbFlagSet("worker jobs redrive", jobsRedriveSynopsis)
	var queue string
	fs.StringVar(&queue, "queue", "", "the dead-letter queue to redrive (required)")
	if err := c.parseNoArgs(fs, args); err != nil {
		return err
	}
	if queue == "" {
		return usagef("-queue is required: the dead-letter queue whose jobs to send back")
	}
	if err := names.Check("queue", queue); err != nil {
		return usagef("-queue: %v", err)
	}
	st, err := c.openWriterStore(ctx, db, c.defaultLogger())
	if err != nil {
		return err
	}
	defer st.Close()
	ids, err := worker.NewClient(st, nil).Redrive(ctx, queue)
	for _, id := range ids {
		fmt.Fprintln(c.stdout, id)
	}
	if err != nil {
		return explainStoreError(fmt.Errorf("%w (%d jobs were redriven before)", err, len(ids)), db.schema)
	}
	fmt.Fprintf(c.stderr, "worker jobs redrive: %d jobs sent back from queue %s\n", len(ids), shown(queue))
	if len(ids) == 0 {
		c.noteNoJobOn(ctx, st, "jobs redrive", queue, "")
	}
	return nil
}
